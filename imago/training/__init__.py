"""Training: game records to samples (:mod:`.data`), batches with symmetry
augmentation (:mod:`.batches`), the training loop (:mod:`.trainer`).

None of them imports TensorFlow/Keras: the Keras parts of training (the
batch feeder, callbacks, the fit call) are in :mod:`imago.nn.fitting`, which
:mod:`.trainer` calls when it runs.
"""
