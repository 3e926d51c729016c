"""Training: game records to samples (:mod:`.data`), batches with symmetry
augmentation (:mod:`.batches`), the training loop (:mod:`.trainer`).

Only :mod:`.trainer` needs TensorFlow/Keras, and imports it when run.
"""
