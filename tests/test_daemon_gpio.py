"""The gpio backend on a machine without GPIO: one clean error, no gpiozero fallback warnings."""

import warnings

import pytest
from gpiozero import Device
from gpiozero.exc import BadPinFactory, PinFactoryFallback
from gpiozero.pins.mock import MockFactory

from companion.devices.backends import probe_pin_factory
from companion.devices.base import DeviceError


@pytest.fixture
def no_factory(monkeypatch):
    monkeypatch.setattr(Device, "pin_factory", None)


def _fallbacks_then(result):
    def default():
        for name, why in (("lgpio", "No module named 'lgpio'"), ("native", "unable to locate")):
            warnings.warn(PinFactoryFallback(f"Falling back from {name}: {why}"), stacklevel=2)
        if isinstance(result, Exception):
            raise result
        return result

    return staticmethod(default)


def test_no_pin_library_is_one_error_naming_what_was_tried(no_factory, monkeypatch):
    monkeypatch.setattr(
        Device, "_default_pin_factory", _fallbacks_then(BadPinFactory("Unable to load"))
    )
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with pytest.raises(DeviceError) as exc:
            probe_pin_factory()
    assert not shown  # the fallback warnings are not printed
    text = str(exc.value)
    assert "GPIO pins cannot be opened" in text and "Raspberry Pi" in text
    assert "tried lgpio: No module named 'lgpio'; native: unable to locate" in text
    assert Device.pin_factory is None


def test_a_factory_found_after_a_fallback_is_kept_quietly(no_factory, monkeypatch):
    factory = MockFactory()
    monkeypatch.setattr(Device, "_default_pin_factory", _fallbacks_then(factory))
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        probe_pin_factory()
    assert not shown and Device.pin_factory is factory
    factory.close()


def test_daemon_gpio_backend_exits_2_without_warnings(no_factory, monkeypatch, capsys, tmp_path):
    from companion.cli import main

    monkeypatch.setattr(
        Device, "_default_pin_factory", _fallbacks_then(BadPinFactory("Unable to load"))
    )
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "config"))
    assert main(["daemon", "--backend", "gpio"]) == 2
    err = capsys.readouterr().err
    assert "GPIO pins cannot be opened" in err
    assert "PinFactoryFallback" not in err and "display" not in err  # checked before the OLED
