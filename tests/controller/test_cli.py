import subprocess
import sys

from controller import cli


def test_help_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out


def test_unknown_command_exits_2(capsys):
    assert cli.main(["no-such-command"]) == 2
    assert "unknown command 'no-such-command'" in capsys.readouterr().err


def test_console_script_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "tablectl" in proc.stdout
