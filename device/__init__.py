"""Running on the table's own computer (a Raspberry Pi): the config file and the ``qwirkle doctor`` checks.

``config``   ``/etc/qwirkle/config.toml``: camera, port, variant, PIN, calibration path
``quality``  plain measures on frames: sharpness, light, colour cast, whether the calibration still fits
``doctor``   each check a small function giving a :class:`~device.doctor.Finding` with the fix
"""
