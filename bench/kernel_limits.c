/* This machine's limits for the prover's kernels, as plain C loops (bench/kernels_bench.py builds
 * it with the system compiler, -O3 -march=native, and reads one JSON line):
 *   blake2s_compress_ns: one BLAKE2s compression (RFC 7693, the reference round structure), one
 *                        message at a time, as a Merkle node or a proof-of-work nonce needs;
 *   blake2s_16lane_ns:   the same, 16 messages at a time with GCC vector types (each state word a
 *                        vector of 16 lanes, as prover/stark/jit/blake2s.py does), per message;
 *   butterfly_ns:        one M31 butterfly (a + b t, a - b t) of a layer with runs of 2^j >= 8
 *                        pairs over 2^16 values (in cache), which the compiler vectorizes.
 * Times are CPU time of one thread, the best of several repetitions. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static const uint32_t IV[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                               0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
static const uint8_t SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define G(a, b, c, d, x, y) \
    a += b + x; d = ROTR(d ^ a, 16); c += d; b = ROTR(b ^ c, 12); \
    a += b + y; d = ROTR(d ^ a, 8); c += d; b = ROTR(b ^ c, 7);

/* The ten rounds and the output step, for scalar words (compress) and 16-lane vectors (compress16). */
#define ROUNDS_AND_OUTPUT \
    for (int r = 0; r < 10; r++) { \
        const uint8_t *s = SIGMA[r]; \
        G(v0, v4, v8, v12, m[s[0]], m[s[1]]) G(v1, v5, v9, v13, m[s[2]], m[s[3]]) \
        G(v2, v6, v10, v14, m[s[4]], m[s[5]]) G(v3, v7, v11, v15, m[s[6]], m[s[7]]) \
        G(v0, v5, v10, v15, m[s[8]], m[s[9]]) G(v1, v6, v11, v12, m[s[10]], m[s[11]]) \
        G(v2, v7, v8, v13, m[s[12]], m[s[13]]) G(v3, v4, v9, v14, m[s[14]], m[s[15]]) \
    } \
    h[0] ^= v0 ^ v8; h[1] ^= v1 ^ v9; h[2] ^= v2 ^ v10; h[3] ^= v3 ^ v11; \
    h[4] ^= v4 ^ v12; h[5] ^= v5 ^ v13; h[6] ^= v6 ^ v14; h[7] ^= v7 ^ v15;

static void compress(uint32_t *h, const uint32_t *m, uint64_t t, int last) {
    uint32_t v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3], v4 = h[4], v5 = h[5], v6 = h[6], v7 = h[7];
    uint32_t v8 = IV[0], v9 = IV[1], v10 = IV[2], v11 = IV[3], v12 = IV[4] ^ (uint32_t)t;
    uint32_t v13 = IV[5] ^ (uint32_t)(t >> 32), v14 = last ? ~IV[6] : IV[6], v15 = IV[7];
    ROUNDS_AND_OUTPUT
}

typedef uint32_t v16 __attribute__((vector_size(64)));

static void compress16(v16 *h, const v16 *m, uint64_t t, int last) {
    v16 v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3], v4 = h[4], v5 = h[5], v6 = h[6], v7 = h[7];
    v16 v8 = (v16){0} + IV[0], v9 = (v16){0} + IV[1], v10 = (v16){0} + IV[2], v11 = (v16){0} + IV[3];
    v16 v12 = (v16){0} + (IV[4] ^ (uint32_t)t), v13 = (v16){0} + (IV[5] ^ (uint32_t)(t >> 32));
    v16 v14 = (v16){0} + (last ? ~IV[6] : IV[6]), v15 = (v16){0} + IV[7];
    ROUNDS_AND_OUTPUT
}

static double cpu(void) { return (double)clock() / CLOCKS_PER_SEC; }

#define P 0x7FFFFFFFu
#define N (1 << 16)
static uint32_t vals[N], tw[N];

static void layer(int j) {
    int half = 1 << j;
    for (int base = 0; base < N; base += 2 * half) {
        uint64_t t = tw[base >> (j + 1)];
        uint32_t *a = vals + base, *b = vals + base + half;
        for (int i = 0; i < half; i++) {
            uint64_t x = (uint64_t)b[i] * t;
            uint64_t r = (x & P) + (x >> 31);
            uint64_t bt = r >= P ? r - P : r;
            uint64_t s = a[i] + bt, d = a[i] + P - bt;
            a[i] = (uint32_t)(s >= P ? s - P : s);
            b[i] = (uint32_t)(d >= P ? d - P : d);
        }
    }
}

int main(void) {
    uint32_t m[16] = {0}, h[8];
    uint64_t acc = 0;
    double best_hash = 1e9, best_bf = 1e9, best_lanes = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        int n = 1 << 20;
        double t0 = cpu();
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 8; k++) h[k] = IV[k];
            h[0] ^= 0x01010020;
            m[8] = (uint32_t)i;
            compress(h, m, 40, 1);
            acc += h[0];
        }
        double dt = (cpu() - t0) / n * 1e9;
        if (dt < best_hash) best_hash = dt;
    }
    for (int rep = 0; rep < 5; rep++) {
        int n = 1 << 20;
        v16 hv[8], mv[16] = {{0}};
        double t0 = cpu();
        for (int i = 0; i < n; i += 16) {
            for (int k = 0; k < 8; k++) hv[k] = (v16){0} + IV[k];
            hv[0] ^= 0x01010020;
            for (int l = 0; l < 16; l++) mv[8][l] = (uint32_t)(i + l);
            compress16(hv, mv, 40, 1);
            acc += hv[0][0];
        }
        double dt = (cpu() - t0) / n * 1e9;
        if (dt < best_lanes) best_lanes = dt;
    }
    for (int i = 0; i < N; i++) { vals[i] = (uint32_t)(i * 2654435761u) % P; tw[i] = (uint32_t)(i * 40503u + 7) % P; }
    for (int rep = 0; rep < 5; rep++) {
        int layers = 0;
        double t0 = cpu();
        for (int k = 0; k < 40; k++)
            for (int j = 3; j < 16; j++, layers++) layer(j);
        double dt = (cpu() - t0) / ((double)layers * (N / 2)) * 1e9;
        if (dt < best_bf) best_bf = dt;
    }
    printf("{\"blake2s_compress_ns\": %.2f, \"blake2s_16lane_ns\": %.2f, \"butterfly_ns\": %.3f, \"checksum\": %llu}\n",
           best_hash, best_lanes, best_bf, (unsigned long long)(acc + vals[1]));
    return 0;
}
