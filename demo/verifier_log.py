"""What a user needs from a refused registration (make cc): which program,
why, and the source line the verifier stopped at. From the top:

  python3 -m demo.verifier_log BPFTOOL_OUTPUT SOURCE.bpf.c

BPFTOOL_OUTPUT is what 'bpftool struct_ops register' printed: libbpf puts
the verifier's log between "-- BEGIN PROG LOAD LOG --" and "-- END PROG
LOAD LOG --". The log names source lines by their text ("; tp->snd_cwnd =
0;", from the object's BTF line info) but not by number, so the number is
found in SOURCE, looking from the program's own function on.
"""
import re
import sys

INSN = re.compile(r"^\d+: \(")
PROG = re.compile(r"libbpf: prog '([^']+)': -- BEGIN PROG LOAD LOG --")


def refused_program(lines):
    """(program name, its log lines), or (None, []) without a log."""
    for i, line in enumerate(lines):
        m = PROG.search(line)
        if m:
            end = next((j for j in range(i + 1, len(lines))
                        if "-- END PROG LOAD LOG --" in lines[j]), len(lines))
            return m.group(1), lines[i + 1:end]
    return None, []


def verdict(log):
    """(the last source line the verifier was at, its last instruction,
    what it said after that instruction)."""
    last = max((i for i, line in enumerate(log) if INSN.match(line)), default=None)
    if last is None:
        return None, None, [line for line in log if line.strip()][-3:]
    source = next((log[i][2:].strip() for i in range(last, -1, -1)
                   if log[i].startswith("; ")), None)
    said = [line for line in log[last + 1:]
            if line.strip() and not line.startswith(("processed ", "verification time"))]
    return source, log[last], said


def source_line(path, prog, text):
    """The line number of text in path, the first one at or after prog's
    definition (the verifier's source lines are stripped of indentation)."""
    with open(path) as f:
        src = [line.strip() for line in f]
    start = next((i for i, line in enumerate(src) if re.search(rf"\b{re.escape(prog)}\b", line)), 0)
    for i in list(range(start, len(src))) + list(range(0, start)):
        if src[i] == text or (text and text in src[i]):
            return i + 1
    return None


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        lines = f.read().splitlines()
    prog, log = refused_program(lines)
    if not prog:
        # not the verifier: libbpf's or the kernel's reason is in its last lines
        print("\n".join("    " + line for line in lines[-8:]))
        return
    source, insn, said = verdict(log)
    print(f"the verifier refused program '{prog}':")
    if source:
        n = source_line(argv[2], prog, source)
        where = f"{argv[2]}:{n}" if n else argv[2]
        print(f"    {where}: {source}")
    if insn:
        print(f"    at instruction {insn}")
    for line in said:
        print(f"    {line}")


if __name__ == "__main__":
    main(sys.argv)
