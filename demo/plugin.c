/*
 * demo-plugin.so - loaded by pcprof-demo with dlopen() and closed again
 * before the program ends: a 3x3 box blur over a small image, repeated.
 */
#include "demo.h"

#define W 128
#define H 96

static float img[H][W], tmp[H][W];

__attribute__((noinline)) static void box_blur(void)
{
	for (int y = 1; y < H - 1; y++)
		for (int x = 1; x < W - 1; x++) {
			float s = 0;
			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++)
					s += img[y + dy][x + dx];
			tmp[y][x] = s / 9;
		}
	for (int y = 1; y < H - 1; y++)
		for (int x = 1; x < W - 1; x++)
			img[y][x] = tmp[y][x];
}

double plugin_blur(double seconds)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			img[y][x] = (float)((x * 7 + y * 13) % 17);
	double t0 = demo_thread_cpu();
	do
		box_blur();
	while (demo_thread_cpu() - t0 < seconds);
	return img[H / 2][W / 2];
}
