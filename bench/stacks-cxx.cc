// stacks-cxx.cc - the C++ program of bench/stacks-vs-perf, built -O2
// -fomit-frame-pointer: a known call structure under main, with library
// code (std::sort's comparator, std::map) between our functions.
//   main -> run -> { mix (recursive, 3 levels) -> spin        ~40% of the work
//                    sorter -> std::sort -> less_by_digits      ~30%
//                    tabulate -> std::map insertions            ~20%
//                    Shape::area (virtual) -> spin             ~10% }
// The argument is a number of rounds (default 40).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long spin(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static unsigned long mix(int depth, unsigned long n, unsigned long x)
{
	if (depth > 0)
		return mix(depth - 1, n, x) ^ spin(n / 4, x + depth);
	return spin(n, x);
}

__attribute__((noinline)) static bool less_by_digits(unsigned a, unsigned b)
{
	unsigned sa = 0, sb = 0;
	for (unsigned v = a; v; v /= 10)
		sa += v % 10;
	for (unsigned v = b; v; v /= 10)
		sb += v % 10;
	return sa != sb ? sa < sb : a < b;
}

__attribute__((noinline)) static unsigned long sorter(unsigned seed)
{
	std::vector<unsigned> v(60000);
	for (auto &e : v)
		e = seed = seed * 1103515245u + 12345u;
	std::sort(v.begin(), v.end(), less_by_digits);
	return v[v.size() / 2];
}

__attribute__((noinline)) static unsigned long tabulate(unsigned seed)
{
	std::map<unsigned, unsigned> m;
	for (int i = 0; i < 60000; i++)
		m[(seed = seed * 1103515245u + 12345u) % 50000] += i;
	return m.size();
}

struct Shape {
	virtual ~Shape() = default;
	virtual unsigned long area(unsigned long n) const = 0;
};
struct Square : Shape {
	__attribute__((noinline)) unsigned long area(unsigned long n) const override
	{
		return spin(n, 3);
	}
};

__attribute__((noinline)) static unsigned long run(int rounds, const Shape &s)
{
	unsigned long acc = 0;
	for (int r = 0; r < rounds; r++) {
		acc ^= mix(3, 12000000, r);
		acc ^= sorter(r);
		acc ^= tabulate(r);
		acc ^= s.area(4000000);
	}
	return acc;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	std::unique_ptr<Shape> s(new Square);
	sink = run(rounds, *s);
	std::printf("%lu\n", (unsigned long)sink);
	return 0;
}
