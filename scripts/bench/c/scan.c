/*
 * C reference for scripts/bench/vector-scan.ts: mmap a recall vector segment file, score every f32 row against
 * row `query_row` (a copy), keep the top 10, and print one JSON line with the wall time of each run in ms.
 * Built by the bench itself with `gcc -O3 -march=native`; the 16-lane accumulator loop is what gcc turns into
 * two 8-wide FMA streams on AVX2, i.e. a memory-bandwidth-bound scan: the physical floor for one core.
 * usage: scan <file> <f32_offset_bytes> <rows> <dims> <query_row> <runs>
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#define TOPK 10

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static float dot(const float *restrict a, const float *restrict b, long n) {
  float acc[16] = {0};
  long j = 0;
  for (; j + 16 <= n; j += 16)
    for (int l = 0; l < 16; l++) acc[l] += a[j + l] * b[j + l];
  float s = 0;
  for (int l = 0; l < 16; l++) s += acc[l];
  for (; j < n; j++) s += a[j] * b[j];
  return s;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: scan <file> <f32_offset_bytes> <rows> <dims> <query_row> <runs>\n");
    return 2;
  }
  long offset = atol(argv[2]), rows = atol(argv[3]), dims = atol(argv[4]), qrow = atol(argv[5]);
  int runs = atoi(argv[6]);
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) { perror("open"); return 1; }
  const char *base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) { perror("mmap"); return 1; }
  const float *all = (const float *)(base + offset);
  float *q = malloc(dims * sizeof(float));
  memcpy(q, all + qrow * dims, dims * sizeof(float));
  float best[TOPK];
  long best_row[TOPK];
  printf("{\"runs_ms\":[");
  for (int r = 0; r < runs; r++) {
    double t0 = now_ms();
    int n = 0;
    for (long i = 0; i < rows; i++) {
      float s = dot(q, all + i * dims, dims);
      if (n < TOPK || s > best[n - 1]) {
        int k = n < TOPK ? n++ : TOPK - 1;
        while (k > 0 && best[k - 1] < s) { best[k] = best[k - 1]; best_row[k] = best_row[k - 1]; k--; }
        best[k] = s;
        best_row[k] = i;
      }
    }
    printf("%s%.3f", r ? "," : "", now_ms() - t0);
  }
  printf("],\"top\":[");
  for (int k = 0; k < TOPK; k++) printf("%s%ld", k ? "," : "", best_row[k]);
  printf("],\"top1_score\":%.6f}\n", best[0]);
  return 0;
}
