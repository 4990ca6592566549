import subprocess
import sys

import pytest

from controller import config


def test_embedded_default_is_the_simulated_table():
    cfg = config.load()
    assert cfg.table.backend == "sim"
    assert cfg.firmware.port == "sim" and cfg.camera.source == "rendered" and cfg.gpio.pin_factory == "mock"
    assert cfg.panel.host == "127.0.0.1" and cfg.panel.port == 8080
    with pytest.raises(AttributeError):
        cfg.panel.port = 1  # frozen


@pytest.mark.parametrize("text, words", [
    ("[panel]\nprot = 1\n", ("prot", "[panel]")),
    ("[camera]\nfps = 10\nzoom = 2\n", ("zoom", "[camera]")),
    ("[pannel]\nport = 1\n", ("[pannel]",)),
    ("[panel]\nport = 'x'\n", ("[panel] port", "integer")),
    ("[panel]\nport = 70000\n", ("[panel] port", "at most 65535")),
    ("[table]\nbackend = 'usb'\n", ("[table] backend", "sim, serial")),
    ("[table]\nbackend = 'serial'\n", ("[firmware] port", "serial")),
    ("panel = 3\n", ("section [panel]",)),
], ids=["typo-key", "unknown-key", "unknown-section", "wrong-type", "out-of-bounds", "bad-choice",
        "serial-with-sim-parts", "value-not-section"])
def test_bad_config_is_refused_naming_section_and_key(tmp_path, text, words):
    path = tmp_path / "table.toml"
    path.write_text(text)
    with pytest.raises(config.ConfigError) as err:
        config.load(path, env={})
    for word in words:
        assert word in str(err.value)


def test_not_toml_is_refused(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[panel\n")
    with pytest.raises(config.ConfigError, match="not valid TOML"):
        config.load(path, env={})


def test_environment_overrides_backend_and_token(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[firmware]\nport = '/dev/ttyAMA0'\n[camera]\nsource = 'v4l2'\n[gpio]\npin_factory = 'lgpio'\n")
    cfg = config.load(path, env={"TABLE_BACKEND": "serial", "JANTAKU_STAFF_TOKEN": "s3cret"})
    assert cfg.table.backend == "serial" and cfg.panel.token == "s3cret"
    with pytest.raises(config.ConfigError, match="TABLE_BACKEND"):
        config.load(path, env={"TABLE_BACKEND": "usb"})


def test_data_dir_prefers_config_then_systemd_state_directory():
    cfg = config.load(env={})
    assert str(config.data_dir(cfg, env={"STATE_DIRECTORY": "/var/lib/jantaku"})) == "/var/lib/jantaku"
    assert str(config.data_dir(cfg, env={})) == "var/t1"
    custom = config.replace(cfg, storage={"data_dir": "/srv/t1"})
    assert str(config.data_dir(custom, env={"STATE_DIRECTORY": "/x"})) == "/srv/t1"


def test_run_refuses_unknown_key_at_start(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[storage]\ndata_dir = 'x'\nbudget = 3\n")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "unknown option 'budget' in section [storage]" in proc.stderr
    assert proc.stdout == ""
