"""The GTP front end: line I/O (:mod:`.io`, :mod:`.stream`), one command
table (:mod:`.table`) filled by handler groups (:mod:`.core`,
:mod:`.analysis`, :mod:`.gogui`; :mod:`.commands` imports them all), the
protocol's side of move searches (:mod:`.moves`) and the ``imagocli``
program (:mod:`.cli`)."""
