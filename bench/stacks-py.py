# stacks-py.py - the CPU-bound Python script of bench/stacks-vs-perf: a few
# pure-Python functions with known callers (recursion, a sort key, string
# and dict work), so that the interpreter's C stacks are deep and varied.
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def words(n):
    out = []
    x = 12345
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append("w%x" % (x % 4099))
    return out


def count(ws):
    d = {}
    for w in ws:
        d[w] = d.get(w, 0) + 1
    return d


def key(kv):
    return (-kv[1], kv[0])


def rank(d):
    return sorted(d.items(), key=key)[:3]


def main(rounds):
    acc = 0
    for r in range(rounds):
        acc += fib(22)
        ws = words(60000)
        acc += len(rank(count(ws)))
        acc += sum(len(w) for w in ws)
    print(acc)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
