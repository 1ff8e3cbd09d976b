// unwind-cxx.cc - a C++ workload for bench/unwind-coverage, built -O2
// without frame pointers: std::map, std::sort with a lambda comparator
// (libstdc++ frames between the lambda and its caller), exceptions.
#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

static int parse(const std::string &s)
{
	if (s.size() % 7 == 0)
		throw std::runtime_error(s);
	return (int)s.size();
}

int main()
{
	std::map<std::string, int> m;
	long total = 0;
	for (int round = 0; round < 6; round++) {
		std::vector<std::string> v;
		for (int i = 0; i < 200000; i++)
			v.push_back(std::to_string(i * 2654435761u % 1000003));
		std::sort(v.begin(), v.end(), [](const std::string &a, const std::string &b) {
			return a.size() != b.size() ? a.size() < b.size() : a > b;
		});
		for (const auto &s : v) {
			try {
				m[s] += parse(s);
			} catch (const std::exception &e) {
				total += e.what()[0];
			}
		}
	}
	std::printf("%zu %ld\n", m.size(), total);
	return 0;
}
