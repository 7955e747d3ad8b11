"""A `kwb serve` child process for the Python tests of agents/: a temporary workspace, a free
loopback port (--port 0 --port-file), auth on by default (the admin token the daemon writes on
its first start is read back), stopped with SIGTERM at the end.

The paths come from the environment ctest sets (tests/CMakeLists.txt): KWB_TEST_BIN_DIR (the
built kwb), KWB_TEST_SOURCE_DIR (the source tree).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Sequence

SOURCE_DIR = Path(os.environ.get("KWB_TEST_SOURCE_DIR") or Path(__file__).resolve().parents[2]).resolve()
BIN_DIR = Path(os.environ.get("KWB_TEST_BIN_DIR") or SOURCE_DIR / "build" / "bin").resolve()
SDK_DIR = SOURCE_DIR / "agents" / "python"
sys.path.insert(0, str(SDK_DIR))


class Daemon:
    def __init__(self, args: Sequence[str] = (), *, auth: bool = True, root: Optional[Path] = None,
                 start_timeout_s: float = 120.0) -> None:
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="kwb-agents-test-"))
        self._own_root = root is None
        self.workspace = self.root / "ws"
        self.workspace.mkdir(parents=True, exist_ok=True)
        self.log_path = self.workspace / "serve.log"
        port_file = self.workspace / "serve.port"
        argv: List[str] = [str(BIN_DIR / "kwb"), "serve", "--port", "0", "--port-file", str(port_file),
                           "--workspace", str(self.workspace)]
        if not auth:
            argv.append("--no-auth")
        argv += list(args)
        if not (BIN_DIR / "kwb").exists():
            raise RuntimeError(f"{BIN_DIR / 'kwb'} is missing: build the kwb target first (KWB_TEST_BIN_DIR)")
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + start_timeout_s
        self.port = 0
        while time.monotonic() < deadline:  # the daemon writes the file once it listens
            if self.proc.poll() is not None:
                raise RuntimeError(f"kwb serve exited with {self.proc.returncode} before listening:\n{self.log()}")
            text = port_file.read_text().strip() if port_file.exists() else ""
            if text.isdigit() and int(text) > 0:
                self.port = int(text)
                break
            time.sleep(0.02)
        if not self.port:
            self.stop()
            raise RuntimeError(f"kwb serve did not write {port_file} within {start_timeout_s:g} s:\n{self.log()}")
        admin = self.workspace / "admin.token"
        self.admin_token = admin.read_text().strip() if auth else ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def remove(self) -> None:
        self.stop()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)


def kernels_folder(root: Path, op: str, name: str, source: str, *, variant: str, entry: str, summary: str) -> Path:
    """A kernels/ folder whose only kernel is ``source`` (the library is seeded from it)."""
    folder = root / "kernels" / op / "cpu"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.cpp").write_text(source)
    (folder / f"{name}.json").write_text(
        '{"op": "%s", "variant": "%s", "backend": "cpu", "entry": "%s", "summary": "%s", "author": "test"}\n'
        % (op, variant, entry, summary))
    return root / "kernels"
