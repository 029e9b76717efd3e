"""The kernel's session, through jupyter_client (tests/notebook/run.sh):
interrupt stops a running cell and keeps the session; completion; shift-tab's
help; a cell's streams arrive while it runs.

usage: session.py     (the kernelspec 'ag' must be installed: run.sh does it)
Prints "N passed, N failed" last.
"""
import sys
import time

import jupyter_client

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    passed += bool(ok)
    failed += not ok
    print(("ok " if ok else "FAIL ") + what + ("" if ok else ": %s" % (detail,)))


def run(kc, code, interrupt_after=None, km=None):
    """Runs a cell: (the reply's status, its outputs as (type, content), the
    seconds from the request to each output)."""
    start = time.time()
    msg_id = kc.execute(code)
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        km.interrupt_kernel()
    outputs, times = [], []
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            break
        if kind in ("stream", "execute_result", "display_data", "error"):
            outputs.append((kind, msg["content"]))
            times.append(time.time() - start)
    reply = kc.get_shell_msg(timeout=60)
    while reply["parent_header"].get("msg_id") != msg_id:  # (kernel_info's, at the start)
        reply = kc.get_shell_msg(timeout=60)
    return reply["content"]["status"], outputs, times


def main():
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="ag")
    try:
        status, outputs, _ = run(kc, "i = 0\nwhile True { i = i + 1 }", interrupt_after=1.0, km=km)
        error = [c for k, c in outputs if k == "error"]
        check(status == "error" and error and error[0]["ename"] == "KeyboardInterrupt",
              "interrupt stops a running loop with KeyboardInterrupt", outputs)
        status, outputs, _ = run(kc, "i > 1000")
        check(status == "ok" and outputs and outputs[0][1]["data"]["text/plain"] == "True",
              "the session is kept: the loop's variable is there", outputs)
        status, outputs, _ = run(kc, "j = 0\nwhile True { j = j + 1; if j % 100 == 0 { print(j) } }",
                                 interrupt_after=1.0, km=km)
        check(status == "error" and outputs[-1][0] == "error" and
              any(k == "stream" for k, _ in outputs),
              "interrupt stops a loop while it prints; its lines came first",
              [k for k, _ in outputs][-3:])
        status, outputs, _ = run(kc, "y = 2 * i\ny / i")
        check(outputs and outputs[0][1]["data"]["text/plain"] == "tensor(2.)",
              "and cells run as before", outputs)
        reply = kc.complete("z = ta", 6, reply=True)["content"]
        check(reply["status"] == "ok" and "tanh" in reply["matches"] and reply["cursor_start"] == 4,
              "completion of a builtin", reply)
        reply = kc.complete("é = 1; :he", 10, reply=True)["content"]
        check(":help" in reply["matches"] and reply["cursor_start"] == 7,
              "completion of a command, offsets in characters", reply)
        reply = kc.inspect("y = relu(x)", 6, reply=True)["content"]
        check(reply["found"] and reply["data"]["text/plain"].startswith("relu(input)"),
              "shift-tab shows :help NAME", reply)
        reply = kc.inspect("y = nothing_here(x)", 6, reply=True)["content"]
        check(reply["status"] == "ok" and not reply["found"], "no help: not found", reply)
        status, outputs, times = run(kc, '%python\nimport time\nprint("first")\ntime.sleep(1.5)\nprint("second")')
        streams = [(c["text"], t) for (k, c), t in zip(outputs, times) if k == "stream"]
        check(len(streams) == 2 and streams[0][0] == "first\n" and streams[1][1] - streams[0][1] > 1,
              "a cell's lines arrive as they are printed", streams)
        status, outputs, _ = run(kc, "x = [1, 2]\nx.append(3)\nx")
        check(outputs and outputs[0][1]["data"]["text/plain"] == "[1, 2, 3]",
              "%python switched the session to the .py rules", outputs)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
