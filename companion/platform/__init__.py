"""Everything between the code and a working box on a Raspberry Pi: systemd notification and
watchdog (:mod:`.systemd`), the installer (:mod:`.install`), the wiring diagram generated from the
pin map (:mod:`.wiring`), the servo disc calibration (:mod:`.calibration`), a display that survives
I2C errors (:mod:`.resilient`) and a probe of what hardware answers (:mod:`.probe`).

Nothing here is imported by the rules; everything imports only the standard library at module
level, so ``python3 -m companion.platform.install`` runs before the virtual environment exists.
"""
