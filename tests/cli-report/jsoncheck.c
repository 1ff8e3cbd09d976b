/*
 * jsoncheck.c - a strict JSON (RFC 8259) checker for the export tests, so
 * that they need no python.  Not a test itself.
 *
 *   jsoncheck FILE [KEY...]
 *
 * Exits 0 if FILE holds exactly one JSON value, else prints where it goes
 * wrong and exits 1.  For each KEY it then prints "KEY N": the element count
 * of the first array that is the value of a member named KEY (in document
 * order), or "KEY -" if there is none.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *s, *start;
static int nkeys;
static char **keys;
static long *counts;

static void fail(const char *what)
{
	fprintf(stderr, "jsoncheck: byte %ld: %s\n", (long)(s - start), what);
	exit(1);
}

static void ws(void)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
}

static void value(const char *key, size_t keylen);

/* A string; if out is given, its raw bytes (escapes left as they are). */
static void string(const char **out, size_t *outlen)
{
	if (*s != '"')
		fail("string expected");
	const char *b = ++s;
	for (;;) {
		unsigned char c = (unsigned char)*s;
		if (c == '"')
			break;
		if (c < 0x20)
			fail(c ? "control character in string" : "unterminated string");
		if (c == '\\') {
			s++;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)s[i]))
						fail("bad \\u escape");
				s += 4;
			} else if (!strchr("\"\\/bfnrt", *s) || !*s) {
				fail("bad escape");
			}
		}
		s++;
	}
	if (out) {
		*out = b;
		*outlen = (size_t)(s - b);
	}
	s++;
}

static void number(void)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else
		fail("bad number");
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			fail("bad fraction");
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			fail("bad exponent");
		while (isdigit((unsigned char)*s))
			s++;
	}
}

static void array(const char *key, size_t keylen)
{
	long n = 0;
	s++;
	ws();
	if (*s != ']') {
		for (;;) {
			ws();
			value(NULL, 0);
			n++;
			ws();
			if (*s == ',') {
				s++;
				continue;
			}
			if (*s != ']')
				fail("',' or ']' expected");
			break;
		}
	}
	s++;
	for (int i = 0; key && i < nkeys; i++)
		if (counts[i] < 0 && strlen(keys[i]) == keylen && memcmp(keys[i], key, keylen) == 0)
			counts[i] = n;
}

static void object(void)
{
	s++;
	ws();
	if (*s == '}') {
		s++;
		return;
	}
	for (;;) {
		ws();
		const char *k;
		size_t kl;
		string(&k, &kl);
		ws();
		if (*s != ':')
			fail("':' expected");
		s++;
		ws();
		value(k, kl);
		ws();
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s != '}')
			fail("',' or '}' expected");
		s++;
		return;
	}
}

static void value(const char *key, size_t keylen)
{
	ws();
	switch (*s) {
	case '{': object(); break;
	case '[': array(key, keylen); break;
	case '"': string(NULL, NULL); break;
	case 't':
		if (strncmp(s, "true", 4))
			fail("bad literal");
		s += 4;
		break;
	case 'f':
		if (strncmp(s, "false", 5))
			fail("bad literal");
		s += 5;
		break;
	case 'n':
		if (strncmp(s, "null", 4))
			fail("bad literal");
		s += 4;
		break;
	default: number(); break;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: jsoncheck FILE [KEY...]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t k;
	while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return 1;
	buf[n] = '\0';
	if (strlen(buf) != n) {
		fprintf(stderr, "jsoncheck: NUL byte in file\n");
		return 1;
	}
	nkeys = argc - 2;
	keys = argv + 2;
	counts = malloc(sizeof *counts * (size_t)(nkeys + 1));
	for (int i = 0; i < nkeys; i++)
		counts[i] = -1;
	s = start = buf;
	value(NULL, 0);
	ws();
	if (*s)
		fail("data after the JSON value");
	for (int i = 0; i < nkeys; i++) {
		if (counts[i] < 0)
			printf("%s -\n", keys[i]);
		else
			printf("%s %ld\n", keys[i], counts[i]);
	}
	return 0;
}
