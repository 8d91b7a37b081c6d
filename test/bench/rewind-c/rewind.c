/*
 * The C side of `npm run bench:rewind`: secp256k1-zkp's own Bulletproof rewind (what grin-wallet
 * calls), timed the way the TypeScript side is timed. Usage:
 *   rewind <commit hex> <proof hex> <nonce hex> <iterations>
 * For the given nonce (the hit) and for the same nonce with its last bit flipped (a miss), it
 * runs `iterations` rewinds and prints one JSON line: CPU time of this process
 * (CLOCK_PROCESS_CPUTIME_ID) and wall time (CLOCK_MONOTONIC) per output in microseconds, and
 * whether each rewind answered as expected (the hit opens, the miss does not).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "secp256k1.h"
#include "secp256k1_generator.h"
#include "secp256k1_commitment.h"
#include "secp256k1_bulletproofs.h"

static size_t unhex(const char *hex, unsigned char *out, size_t max) {
  size_t n = strlen(hex) / 2;
  if (n > max) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned int byte;
    if (sscanf(hex + 2 * i, "%2x", &byte) != 1) return 0;
    out[i] = (unsigned char)byte;
  }
  return n;
}

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs `iterations` rewinds with `nonce`; returns how many answered `expect`. */
static long run(const secp256k1_context *ctx, const unsigned char *proof, size_t plen, const secp256k1_pedersen_commitment *commit, const unsigned char *nonce, int expect, long iterations, double *cpu_us, double *wall_us) {
  long right = 0;
  double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
  for (long i = 0; i < iterations; i++) {
    uint64_t value;
    unsigned char blind[32], message[20];
    int ok = secp256k1_bulletproof_rangeproof_rewind(ctx, &value, blind, proof, plen, 0, commit, &secp256k1_generator_const_h, nonce, NULL, 0, message);
    if (ok == expect) right++;
  }
  *cpu_us = (seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0) * 1e6 / (double)iterations;
  *wall_us = (seconds(CLOCK_MONOTONIC) - wall0) * 1e6 / (double)iterations;
  return right;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: rewind <commit hex> <proof hex> <nonce hex> <iterations>\n");
    return 2;
  }
  unsigned char commit_bytes[33], proof[5134], nonce[32], miss[32];
  size_t plen;
  long iterations = atol(argv[4]);
  if (unhex(argv[1], commit_bytes, sizeof commit_bytes) != 33 || (plen = unhex(argv[2], proof, sizeof proof)) == 0 || unhex(argv[3], nonce, sizeof nonce) != 32 || iterations < 1) {
    fprintf(stderr, "rewind: bad commit, proof, nonce or iterations\n");
    return 2;
  }
  memcpy(miss, nonce, 32);
  miss[31] ^= 1;
  secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_SIGN | SECP256K1_CONTEXT_VERIFY);
  secp256k1_pedersen_commitment commit;
  if (!secp256k1_pedersen_commitment_parse(ctx, &commit, commit_bytes)) {
    fprintf(stderr, "rewind: the commitment does not parse\n");
    return 2;
  }
  double miss_cpu, miss_wall, hit_cpu, hit_wall;
  long miss_right = run(ctx, proof, plen, &commit, miss, 0, iterations, &miss_cpu, &miss_wall);
  long hit_right = run(ctx, proof, plen, &commit, nonce, 1, iterations, &hit_cpu, &hit_wall);
  printf("{\"iterations\":%ld,\"miss\":{\"cpu_us\":%.3f,\"wall_us\":%.3f,\"right\":%ld},\"hit\":{\"cpu_us\":%.3f,\"wall_us\":%.3f,\"right\":%ld}}\n", iterations, miss_cpu, miss_wall, miss_right, hit_cpu, hit_wall, hit_right);
  secp256k1_context_destroy(ctx);
  return miss_right == iterations && hit_right == iterations ? 0 : 1;
}
