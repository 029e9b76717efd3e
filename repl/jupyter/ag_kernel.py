"""ag's Jupyter kernel: a wrapper kernel, as bash_kernel is.

ipykernel speaks Jupyter's protocol (ZeroMQ, signed JSON messages); this
file starts one `ag --kernel` per notebook and passes it each request over
a pipe in frames (repl/kernel.c, docs/language.md "Jupyter notebooks"): a
line "KIND LENGTH [ARGUMENT]" then LENGTH bytes. ag answers each request
with frames ending in "done"; each becomes a Jupyter message here.

The ag program is $AG (make install-kernel writes it into kernel.json), or
`ag` on the PATH.
"""
import os
import select
import signal
import subprocess

from ipykernel.kernelbase import Kernel

__version__ = "1.0"


class AgExited(Exception):
    """ag --kernel ended (a crash, or killed): the session is gone."""


class AgProcess:
    """One `ag --kernel`, its pipes, and the reading of its frames."""

    def __init__(self, program):
        self.proc = subprocess.Popen([program, "--kernel"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0)
        self.fd = self.proc.stdout.fileno()
        self.buffer = b""

    def send(self, kind, data, arg=None):
        header = "%s %d%s\n" % (kind, len(data), "" if arg is None else " %d" % arg)
        self.proc.stdin.write(header.encode() + data)
        self.proc.stdin.flush()

    def _fill(self):
        """Reads more bytes into the buffer (a signal's EINTR is retried:
        PEP 475)."""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            raise AgExited()
        self.buffer += chunk

    def interrupt(self):
        """Jupyter's interrupt, passed on: ag stops the cell and answers as
        usual. (Jupyter signals the kernel's process group, which holds ag
        too; a second SIGINT only sets ag's flag again.)"""
        try:
            self.proc.send_signal(signal.SIGINT)
        except OSError:
            pass

    def ready(self, timeout):
        """Whether a frame's bytes are waiting (or come within timeout)."""
        return bool(self.buffer) or bool(select.select([self.fd], [], [], timeout)[0])

    def frame(self):
        """The next frame: (kind, argument words, payload bytes)."""
        while b"\n" not in self.buffer:
            self._fill()
        header, self.buffer = self.buffer.split(b"\n", 1)
        words = header.decode().split()
        length = int(words[1])
        while len(self.buffer) < length:
            self._fill()
        data, self.buffer = self.buffer[:length], self.buffer[length:]
        return words[0], words[2:], data

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


class AgKernel(Kernel):
    implementation = "ag_kernel"
    implementation_version = __version__
    language = "ag"
    language_version = "3"
    language_info = {
        "name": "ag",
        "mimetype": "text/plain",
        "file_extension": ".ag",
        "codemirror_mode": "python",
        "pygments_lexer": "python3",
    }
    banner = "ag: a reverse-mode autograd calculator (docs/language.md, 'Jupyter notebooks')"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.program = os.environ.get("AG", "ag")
        self.ag = AgProcess(self.program)

    # ---- execute ----

    def _stream(self, name, text):
        self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    def do_execute(self, code, silent, store_history=True, user_expressions=None,
                   allow_stdin=False):
        # ipykernel turns SIGINT into a KeyboardInterrupt during a request,
        # which could land between two frames and lose ag's answer: here
        # SIGINT is only passed on to ag, which ends the cell itself.
        previous = signal.signal(signal.SIGINT, lambda signum, frame: self.ag.interrupt())
        try:
            self.ag.send("execute", code.encode())
            return self._answer(silent)
        except (AgExited, BrokenPipeError):
            return self._restart(silent)
        finally:
            signal.signal(signal.SIGINT, previous)

    def _answer(self, silent):
        """Turns ag's frames for one cell into Jupyter messages. Text is
        gathered while more of it is waiting, so a loop's lines come as a
        few messages, not one each."""
        pending_name, pending = None, []
        reply = {"status": "ok", "execution_count": self.execution_count,
                 "payload": [], "user_expressions": {}}
        while True:
            kind, args, data = self.ag.frame()
            if kind in ("stdout", "stderr"):
                if pending and pending_name != kind:
                    self._stream(pending_name, "".join(pending))
                    pending = []
                pending_name = kind
                pending.append(data.decode("utf-8", "replace"))
                if not self.ag.ready(0.05):
                    self._stream(pending_name, "".join(pending))
                    pending = []
                continue
            if pending and not silent:
                self._stream(pending_name, "".join(pending))
            pending = []
            if silent and kind not in ("error", "done"):
                continue
            if kind == "display":
                text = data.decode("utf-8", "replace")
                self.send_response(self.iopub_socket, "display_data", {
                    "data": {args[0]: text, "text/plain": "<%s picture>" % args[0]},
                    "metadata": {}})
            elif kind == "result":
                self.send_response(self.iopub_socket, "execute_result", {
                    "execution_count": self.execution_count,
                    "data": {"text/plain": data.decode("utf-8", "replace")}, "metadata": {}})
            elif kind == "error":
                name, value, report = data.decode("utf-8", "replace").split("\0", 2)
                error = {"ename": name, "evalue": value,
                         "traceback": report.rstrip("\n").split("\n")}
                self.send_response(self.iopub_socket, "error", error)
                reply.update(status="error", **error)
            elif kind == "done":
                return reply

    def _restart(self, silent):
        """ag ended under the cell: say so, and start a fresh session."""
        status = self.ag.proc.poll()
        self.ag.close()
        self.ag = AgProcess(self.program)
        error = {"ename": "AgExited",
                 "evalue": "ag --kernel ended (status %s): a new session started, "
                           "with no variables" % status,
                 "traceback": ["ag --kernel ended (status %s): a new session started, "
                               "with no variables" % status]}
        if not silent:
            self.send_response(self.iopub_socket, "error", error)
        return dict(status="error", execution_count=self.execution_count, **error)

    # ---- complete and inspect: byte offsets for ag, characters for Jupyter ----

    def _ask(self, kind, code, cursor_pos):
        encoded = code.encode()
        self.ag.send(kind, encoded, len(code[:cursor_pos].encode()))
        answer = None
        while True:
            frame = self.ag.frame()
            if frame[0] == "done":
                return encoded, answer
            answer = frame

    def do_complete(self, code, cursor_pos):
        try:
            encoded, (kind, args, data) = self._ask("complete", code, cursor_pos)
        except (AgExited, BrokenPipeError, TypeError):
            return {"status": "error", "ename": "AgExited", "evalue": "", "traceback": []}
        start, end = (len(encoded[:int(n)].decode("utf-8", "ignore")) for n in args)
        return {"status": "ok", "matches": data.decode().split("\n")[:-1] if data else [],
                "cursor_start": start, "cursor_end": end, "metadata": {}}

    def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        try:
            _, (kind, args, data) = self._ask("inspect", code, cursor_pos)
        except (AgExited, BrokenPipeError, TypeError):
            return {"status": "error", "ename": "AgExited", "evalue": "", "traceback": []}
        text = data.decode("utf-8", "replace")
        return {"status": "ok", "found": bool(text), "metadata": {},
                "data": {"text/plain": text} if text else {}}

    def do_shutdown(self, restart):
        self.ag.close()
        return {"status": "ok", "restart": restart}


if __name__ == "__main__":
    from ipykernel.kernelapp import IPKernelApp
    IPKernelApp.launch_instance(kernel_class=AgKernel)
