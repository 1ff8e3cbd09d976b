// cxxtarget - a C++ program for t-demangle.sh (built by the test with g++):
// it burns SECONDS of CPU in a member of a class template in a namespace,
// and in two functions whose symbols are spelled as rustc spells them
// (legacy and v0 mangling), so that the demangler meets all three.
//
//   cxxtarget SECONDS
#include <cstdlib>
#include <ctime>

namespace geo {
template <typename T> struct Grid {
	T acc;
	__attribute__((noinline)) T sum(int n);
};

template <typename T> T Grid<T>::sum(int n)
{
	for (int i = 0; i < n; i++)
		acc = acc * 3 + i;
	return acc;
}
} // namespace geo

static volatile long sink;

extern "C" void rust_legacy(long n) __asm__("_ZN7mycrate4spin17h0011223344556677E");
extern "C" void rust_v0(long n) __asm__("_RNvNtCs1234_7mycrate5inner4spin");

extern "C" __attribute__((noinline)) void rust_legacy(long n)
{
	for (long i = 0; i < n; i++)
		sink = sink + i;
}

extern "C" __attribute__((noinline)) void rust_v0(long n)
{
	for (long i = 0; i < n; i++)
		sink = sink ^ i;
}

static double cpu_now()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double end = cpu_now() + (argc > 1 ? atof(argv[1]) : 1.0);
	geo::Grid<long> g = { 1 };
	while (cpu_now() < end) {
		sink = sink + g.sum(2000000);
		rust_legacy(1000000);
		rust_v0(1000000);
	}
	return 0;
}
