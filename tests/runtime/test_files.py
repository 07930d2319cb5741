"""Bad policy and certificate files are refused with a one-line reason naming the file."""

import json
import math
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest
from helpers import FULL, NULL, memory_device

from ospiel_ext import policies, policy_files
from ospiel_ext.algorithms import certificates
from ospiel_ext.runtime import files


@pytest.fixture(scope="module")
def kuhn_policy_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "kuhn.json"
    policy_files.save_policy(policies.uniform_policy("kuhn_poker"), path, "kuhn_poker")
    return path


def _edited(tmp_path, source, edit, name="edited.json"):
    data = json.loads(source.read_text())
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_policy_file_is_strict_json_ending_with_a_newline(kuhn_policy_file):
    text = kuhn_policy_file.read_text()
    assert text.endswith("\n")
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))


def test_same_game_with_explicit_default_parameters_loads(kuhn_policy_file, tmp_path):
    path = _edited(tmp_path, kuhn_policy_file, lambda d: d.update(game="kuhn_poker(players=2)"))
    pol = policy_files.load_policy("kuhn_poker", path)
    np.testing.assert_allclose(pol.action_probability_array.sum(axis=1), 1.0)


def _first_row(data):
    return next(iter(data["policy"].values()))


@pytest.mark.parametrize(
    "edit, reason",
    [
        (lambda d: _first_row(d).update({"0": math.nan, "1": 1.0}), "is not a number"),
        (lambda d: _first_row(d).update({"0": "0.5"}), "is not a number"),
        (lambda d: d.update(game="leduc_poker"), "not for kuhn_poker"),
        (lambda d: d.update(game="no_such_game"), "cannot be loaded"),
        (lambda d: d.pop("policy"), "needs a 'policy' object"),
    ],
)
def test_bad_policy_files_are_refused(kuhn_policy_file, tmp_path, edit, reason):
    path = _edited(tmp_path, kuhn_policy_file, edit)
    with pytest.raises(ValueError, match=reason) as e:
        policy_files.load_policy("kuhn_poker", path)
    assert "\n" not in str(e.value) and str(path) in str(e.value)


@pytest.mark.parametrize(
    "text, reason",
    [("{not json", "not JSON"), ("[1, 2]", "needs a JSON object"), ("", "not JSON")],
)
def test_unreadable_policy_files_name_the_file(tmp_path, text, reason):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=reason) as e:
        policy_files.load_policy("kuhn_poker", path)
    assert str(path) in str(e.value)


def test_missing_policy_file_is_one_line(tmp_path):
    with pytest.raises(ValueError, match="cannot read policy file"):
        policy_files.load_policy("kuhn_poker", tmp_path / "missing.json")


def test_write_json_writes_nan_as_null_and_leaves_no_temporary_file(tmp_path):
    files.write_json(tmp_path / "r.json", {"x": math.nan, "y": np.float64(np.inf), "z": [1.5]})
    assert json.loads((tmp_path / "r.json").read_text()) == {"x": None, "y": None, "z": [1.5]}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.fixture(scope="module")
def kuhn_certificate(tmp_path_factory):
    path = tmp_path_factory.mktemp("cert") / "kuhn.cert.json"
    cert = certificates.search("kuhn_poker").certificate
    certificates.save(cert, path, cert.trunk.game)
    return path


def _copy_certificate(tmp_path, source, edit):
    path = _edited(tmp_path, source, edit, "c.json")
    (tmp_path / "c.json.npz").write_bytes((source.parent / f"{source.name}.npz").read_bytes())
    return path


def test_saved_certificate_verifies(kuhn_certificate):
    result = certificates.verify_saved("kuhn_poker(players=2)", kuhn_certificate)
    assert result.ok, result.reason
    assert result.value_lower == pytest.approx(-1 / 18, abs=1e-9)


@pytest.mark.parametrize(
    "edit, reason",
    [
        (lambda d: d.update(value_lower=0.5, value_upper=0.5), "claims value_lower=0.5"),
        (lambda d: d.update(value_upper=0.5), "claims value_upper=0.5"),
        (lambda d: d.update(epsilon=0.25), "claims epsilon=0.25"),
        (lambda d: d.update(epsilon="0"), "'epsilon' is missing or not a finite number"),
        (lambda d: next(iter(d["strategy"][0].values())).update({"0": "1"}), "non-numeric"),
        (lambda d: d.update(game="leduc_poker"), "not for kuhn_poker"),
    ],
)
def test_tampered_certificates_are_rejected(kuhn_certificate, tmp_path, edit, reason):
    result = certificates.verify_saved(
        "kuhn_poker", _copy_certificate(tmp_path, kuhn_certificate, edit)
    )
    assert not result.ok
    assert reason in result.reason and "\n" not in result.reason


def test_certificate_that_is_a_json_list_is_rejected(tmp_path):
    (tmp_path / "c.json").write_text("[]")
    result = certificates.verify_saved("kuhn_poker", tmp_path / "c.json")
    assert not result.ok and "needs a JSON object" in result.reason


def test_garbage_trunk_file_is_rejected_without_pickle_talk(kuhn_certificate, tmp_path):
    path = _copy_certificate(tmp_path, kuhn_certificate, lambda d: None)
    (tmp_path / "c.json.npz").write_bytes(b"\x80\x04garbage that is not a zip archive")
    result = certificates.verify_saved("kuhn_poker", path)
    assert not result.ok and "is not a trunk file" in result.reason
    assert "pickle" not in result.reason


def test_written_files_get_the_usual_permissions(tmp_path):
    # mkstemp creates 0600 files; a result file must be readable as any other file (umask).
    umask = os.umask(0o022)
    try:
        files.write_json(tmp_path / "r.json", {"x": 1})
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "r.json").st_mode) == 0o644


# --- outputs: never destroy what is at the path, never half a file ----------------------


@pytest.fixture
def full_device(tmp_path):
    return memory_device(tmp_path, "full", FULL)


@pytest.fixture
def null_device(tmp_path):
    return memory_device(tmp_path, "null", NULL)


def test_a_device_is_written_through_and_stays_a_device(null_device):
    files.write_json(null_device, {"x": 1})
    assert stat.S_ISCHR(os.stat(null_device).st_mode)


def test_a_full_device_fails_in_one_line_and_stays_a_device(full_device):
    with pytest.raises(files.OutputError) as e:
        files.write_json(full_device, {"x": 1})
    assert str(e.value) == f"cannot write {full_device}: no space left on device"
    assert stat.S_ISCHR(os.stat(full_device).st_mode)


def test_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    files.write_json(fifo, {"x": 1})
    reader.join(timeout=10)
    assert json.loads(received[0]) == {"x": 1} and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_link_is_followed_and_its_target_replaced(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.json"
    os.symlink(target, link)
    files.write_json(link, {"x": 1})
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text()) == {"x": 1}
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # the replaced file's permissions
    dangling = tmp_path / "dangling.json"
    os.symlink(tmp_path / "new.json", dangling)
    files.write_json(dangling, {"y": 2})
    assert dangling.is_symlink() and json.loads((tmp_path / "new.json").read_text()) == {"y": 2}


def test_dash_is_standard_output(capfd):
    files.write_json(files.STDOUT, {"x": 1})
    assert json.loads(capfd.readouterr().out) == {"x": 1}


def test_all_or_nothing_writes_none_when_one_output_fails(tmp_path, full_device):
    first, last = tmp_path / "first.json", tmp_path / "last.json"
    first.write_text("kept")
    with pytest.raises(files.OutputError) as e:
        with files.all_or_nothing():
            files.write_json(first, {"x": 1})
            files.write_json(full_device, {"x": 2})
            files.write_json(last, {"x": 3})
    message = str(e.value)
    assert message.startswith(f"cannot write {full_device}: no space left on device")
    assert "written: nothing" in message and str(first) in message and str(last) in message
    assert first.read_text() == "kept" and not last.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p for p in ("first.json", "full", "null") if (tmp_path / p).exists()
    )  # no temporary file left


def test_all_or_nothing_discards_everything_on_an_error_inside(tmp_path):
    with pytest.raises(RuntimeError), files.all_or_nothing():
        files.write_json(tmp_path / "a.json", {"x": 1})
        raise RuntimeError("the run failed after writing a")
    assert list(tmp_path.iterdir()) == []


def test_a_file_too_large_for_the_disk_writes_nothing(tmp_path):
    """A write that fails in the middle (RLIMIT_FSIZE here, as a full disk would) leaves no
    output and no temporary file; the error is one line naming the path."""
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
        "from ospiel_ext.runtime import files\n"
        "try:\n"
        "    with files.all_or_nothing():\n"
        "        files.write_json(sys.argv[1] + '/small.json', {'x': 1})\n"
        "        files.write_json(sys.argv[1] + '/big.json', {'x': 'y' * 10000})\n"
        "except files.OutputError as e:\n"
        "    print(e)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.stdout.startswith(f"cannot write {tmp_path}/big.json: file too large"), proc
    assert "no output was written" in proc.stdout
    assert list(tmp_path.iterdir()) == []


def test_an_output_that_is_an_input_is_refused(tmp_path):
    source = tmp_path / "in.json"
    source.write_text("{}")
    os.symlink(source, tmp_path / "link.json")
    for spelling in (source, tmp_path / "." / "in.json", tmp_path / "link.json"):
        with pytest.raises(ValueError, match=r"is the input --policy \(the same file\)"):
            files.check_outputs({"--output_json": spelling}, {"--policy": source})
    with pytest.raises(ValueError, match="is the output --a"):
        files.check_outputs({"--a": tmp_path / "x.json", "--b": tmp_path / "x.json"})
    files.check_outputs({"--a": "/dev/null", "--b": "/dev/null"}, {"--c": "/dev/null"})
    with pytest.raises(ValueError, match="--b=- is the output --a"):  # one stream, one output
        files.check_outputs({"--a": files.STDOUT, "--b": files.STDOUT})


def test_an_interrupted_commit_leaves_no_temporary_file_and_says_what_was_written(
    tmp_path, null_device, monkeypatch
):
    """A second Ctrl-C while a device or FIFO is written (after the files are staged)."""
    copy = shutil.copyfileobj

    def interrupted(source, target, *args):
        if getattr(target, "name", None) == null_device:
            raise KeyboardInterrupt
        return copy(source, target, *args)

    monkeypatch.setattr(shutil, "copyfileobj", interrupted)
    with pytest.raises(KeyboardInterrupt) as e:
        with files.all_or_nothing():
            files.write_json(tmp_path / "r.json", {"x": 1})
            files.write_json(null_device, {"x": 2})
    assert e.value.__notes__ == [
        f"(written: nothing; not written: {null_device}, {tmp_path}/r.json)"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p for p in ("null",) if (tmp_path / p).exists()
    )


def test_read_npz_reads_arrays_and_refuses_everything_else_in_one_line(tmp_path):
    good = tmp_path / "good.npz"
    np.savez(good, a=np.arange(3), b=np.ones((2, 2)))
    data = files.read_npz(good, "test file")
    assert sorted(data) == ["a", "b"] and data["a"].tolist() == [0, 1, 2]
    (tmp_path / "text.npz").write_text("hello\n")
    (tmp_path / "cut.npz").write_bytes(good.read_bytes()[:100])
    with open(tmp_path / "one.npz", "wb") as f:  # a single .npy array under a .npz name
        np.save(f, np.zeros(3))
    np.savez(tmp_path / "objects.npz", a=np.array([{"x": 1}], dtype=object))
    for name in ("text", "cut", "one", "objects"):
        path = tmp_path / f"{name}.npz"
        with pytest.raises(ValueError, match=r"^\S+ is not a test file \(not a .npz archive"):
            files.read_npz(path, "test file")
    with pytest.raises(FileNotFoundError):
        files.read_npz(tmp_path / "missing.npz", "test file")


_SLOW_WRITER = """
import sys, time
from ospiel_ext.runtime import files
with files.output(sys.argv[1]) as f:
    f.write("partial")
    f.flush()
    print("writing", flush=True)
    time.sleep(600)
"""


def _start_writer(path):
    """A process half-way through writing `path` (it says 'writing', then waits)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline() == "writing\n"
    return proc


def _temporary_files(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_write_killed_with_sigkill_leaves_a_temporary_file_the_next_write_removes(tmp_path):
    writer = _start_writer(tmp_path / "big.npz")
    (left,) = _temporary_files(tmp_path)
    assert left.startswith(".big.npz.ospiel-") and f"-{writer.pid}-" in left
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert _temporary_files(tmp_path) == [left]  # a kill cannot clean up
    foreign = [".x.json.1234.tmp", f".y.json.ospiel-otherhost-{writer.pid}-abc.tmp"]
    for name in foreign:  # another program's, and ours from another host: never touched
        (tmp_path / name).write_text("")
    files.write_json(tmp_path / "r.json", {"a": 1})
    assert _temporary_files(tmp_path) == sorted(foreign)
    assert not (tmp_path / "big.npz").exists() and json.loads((tmp_path / "r.json").read_text())


def test_a_running_writers_temporary_file_is_left_alone(tmp_path):
    writer = _start_writer(tmp_path / "big.npz")
    try:
        (left,) = _temporary_files(tmp_path)
        files.write_json(tmp_path / "r.json", {"a": 1})
        assert files.remove_stale(str(tmp_path)) == []
        assert _temporary_files(tmp_path) == [left]
    finally:
        writer.kill()
        writer.wait()
    assert files.remove_stale(str(tmp_path)) == [str(tmp_path / left)]
