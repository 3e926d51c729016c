"""Training: game records to samples (:mod:`.data`), batches with symmetry
augmentation (:mod:`.batches`), the options of a run and their checks
(:mod:`.options`), where its network comes from: new, ``--init`` or
``--resume`` (:mod:`.start`), the training loop (:mod:`.trainer`).

None of them imports TensorFlow/Keras: the Keras parts of training (the
batch feeder, callbacks, the fit call) are in :mod:`imago.nn.fitting`, which
:mod:`.trainer` calls when it runs.
"""
