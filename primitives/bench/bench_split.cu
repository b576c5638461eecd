// Rows of the split family and SplitSort against CUB radix sorts (see bench_common.h for the method).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <vector>

#include "bench_common.h"
#include "prim/iterative_split.h"
#include "prim/segmented_split.h"
#include "prim/sort.h"
#include "prim/split.h"
#include "prim/split_index.h"

namespace bench {
namespace {

// 2048 buckets: the split's two 8-bit passes, against CUB's sort of the same 11 bits.
struct Low11Bits {
  __host__ __device__ uint32_t operator()(uint32_t key) const { return key & 0x7FFu; }
};
// The key's low bits as a 64-bit id (prim/iterative_split.h).
struct IdLowBits {
  uint32_t mask;
  __host__ __device__ uint64_t operator()(uint32_t key) const { return key & mask; }
};
// Id widths of the iterative split rows: one, two and three 8-bit passes.
constexpr int kIdBits[] = {12, 16, 22};

std::string equal_or(const char* what, const void* a, const void* b, size_t bytes, cudaStream_t s) {
  return device_equal(a, b, bytes, s) ? "ok" : std::string("MISMATCH: ") + what + " differ from the peer's";
}

// An unstable split's output cannot equal the (stable) peer's byte for byte, so it is checked for what it must be.
// Values are the input positions 0..n-1 (fill_sequence). Position i is wrong unless its value v < n is seen for the
// first time (a bit set per v), its key is the input key at v, and its bucket is the bucket of the peer's key at i.
// n positions with distinct in-range values are a permutation of the input pairs, and equal buckets position by
// position mean the same bucket ranges as the stable peer's.
__global__ void __launch_bounds__(kIdThreads)
    check_unstable_pairs_kernel(const uint32_t* keys_in, const uint32_t* keys_out, const uint32_t* values_out,
                                const uint32_t* peer_keys, int64_t n, uint32_t bucket_mask, uint32_t* seen,
                                unsigned long long* errors) {
  const int64_t i = blockIdx.x * int64_t(kIdThreads) + threadIdx.x;
  if (i >= n) return;
  const uint32_t v = values_out[i];
  bool bad = v >= n || keys_out[i] != keys_in[v] || (keys_out[i] & bucket_mask) != (peer_keys[i] & bucket_mask);
  if (v < n) {
    const uint32_t bit = 1u << (v % 32);
    bad = bad || (atomicOr(&seen[v / 32], bit) & bit) != 0;
  }
  if (bad) atomicAdd(errors, 1ull);
}

// The unstable split's output: a permutation of the input pairs whose bucket (key & bucket_mask) at every position
// is the peer's (CUB's sort by the same key bits).
std::string unstable_pairs_or(const uint32_t* keys_in, const uint32_t* keys_out, const uint32_t* values_out,
                              const uint32_t* peer_keys, int64_t n, uint32_t bucket_mask, cudaStream_t s) {
  Buffer seen(sizeof(uint32_t) * static_cast<size_t>((n + 31) / 32)), errors(sizeof(unsigned long long));
  if (seen.status() != cudaSuccess || errors.status() != cudaSuccess) return "CUDA error: check buffers";
  unsigned long long h_errors = 0;
  const unsigned blocks = static_cast<unsigned>((n + kIdThreads - 1) / kIdThreads);
  if (cudaMemsetAsync(seen.get(), 0, seen.bytes(), s) != cudaSuccess ||
      cudaMemsetAsync(errors.get(), 0, errors.bytes(), s) != cudaSuccess) {
    return "CUDA error: check memset";
  }
  if (n > 0) {
    check_unstable_pairs_kernel<<<blocks, kIdThreads, 0, s>>>(keys_in, keys_out, values_out, peer_keys, n,
                                                              bucket_mask, seen.as<uint32_t>(),
                                                              errors.as<unsigned long long>());
  }
  if (cudaGetLastError() != cudaSuccess ||
      cudaMemcpyAsync(&h_errors, errors.get(), sizeof(h_errors), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
      cudaStreamSynchronize(s) != cudaSuccess) {
    return "CUDA error: check kernel";
  }
  return h_errors == 0 ? "ok"
                       : "MISMATCH: " + std::to_string(h_errors) + " positions not a bucket-preserving permutation";
}

}  // namespace

void run_split_rows(Context& ctx, int64_t n, Dist dist) {
  const cudaStream_t s = ctx.stream;
  const size_t kb = n * sizeof(uint32_t);
  Buffer keys(kb), vals(kb), keys_a(kb), keys_b(kb), vals_a(kb), vals_b(kb), ids(n), ids_out(n);
  Buffer offsets(sizeof(uint64_t) * (2048 + 1));
  for (const Buffer* b : {&keys, &vals, &keys_a, &keys_b, &vals_a, &vals_b, &ids, &ids_out}) {
    BENCH_TRY(ctx, b->status());
  }
  fill_keys(keys.as<uint32_t>(), n, dist, 42, s);
  fill_sequence(vals.as<uint32_t>(), n, s);
  BENCH_TRY(ctx, cudaStreamSynchronize(s));
  const uint32_t* k_in = keys.as<uint32_t>();
  const uint32_t* v_in = vals.as<uint32_t>();
  uint32_t *ka = keys_a.as<uint32_t>(), *kb_ = keys_b.as<uint32_t>(), *va = vals_a.as<uint32_t>(), *vb = vals_b.as<uint32_t>();
  uint64_t* offs = offsets.as<uint64_t>();

  // Scratch: the largest of every call's size query, allocated once.
  size_t t_split_pairs = 0, t_split_pairs_unstable = 0, t_split = 0, t_index = 0, t_sort_k = 0, t_sort_p = 0;
  size_t t_split_2048 = 0, t_split_2048_unstable = 0, t_index_2048 = 0;
  size_t c_pairs = 0, c_sort_pairs_ids = 0, c_sort_pairs_ids_seq = 0, c_keys = 0;
  size_t t_split_pairs_key_bits = 0;
  BENCH_TRY(ctx, prim::split_pairs(nullptr, t_split_pairs, k_in, ka, v_in, va, n, 256, LowByte{}, offs, s));
  BENCH_TRY(ctx, prim::split_pairs(nullptr, t_split_pairs_key_bits, k_in, ka, v_in, va, n, 256, prim::KeyBits<uint32_t>{0, 8},
                                   offs, s));
  BENCH_TRY(ctx, prim::split_pairs(nullptr, t_split_pairs_unstable, k_in, ka, v_in, va, n, 256, LowByte{}, offs, s,
                                   prim::SplitOrder::unstable));
  BENCH_TRY(ctx, prim::split_pairs(nullptr, t_split_2048, k_in, ka, v_in, va, n, 2048, Low11Bits{}, offs, s));
  BENCH_TRY(ctx, prim::split_pairs(nullptr, t_split_2048_unstable, k_in, ka, v_in, va, n, 2048, Low11Bits{}, offs, s,
                                   prim::SplitOrder::unstable));
  BENCH_TRY(ctx, prim::split(nullptr, t_split, k_in, ka, n, 256, HashBucket{}, offs, s));
  size_t t_split_255 = 0;
  BENCH_TRY(ctx, prim::split(nullptr, t_split_255, k_in, ka, n, 255, HashBucket{}, offs, s));
  BENCH_TRY(ctx, prim::split_index(nullptr, t_index, k_in, n, 256, HashBucket{}, va, prim::PermutationKind::gather, offs, s));
  BENCH_TRY(ctx, prim::split_index(nullptr, t_index_2048, k_in, n, 2048, Low11Bits{}, va, prim::PermutationKind::gather,
                                   offs, s));
  BENCH_TRY(ctx, prim::sort_keys(nullptr, t_sort_k, k_in, ka, n, 0, 32, s));
  BENCH_TRY(ctx, prim::sort_pairs(nullptr, t_sort_p, k_in, ka, v_in, va, n, 0, 32, s));
  BENCH_TRY(ctx, cub::DeviceRadixSort::SortPairs(nullptr, c_pairs, k_in, kb_, v_in, vb, n, 0, 32, s));
  BENCH_TRY(ctx, cub::DeviceRadixSort::SortPairs(nullptr, c_sort_pairs_ids, ids.as<uint8_t>(), ids_out.as<uint8_t>(), k_in, kb_, n, 0, 8, s));
  c_sort_pairs_ids_seq = c_sort_pairs_ids;
  BENCH_TRY(ctx, cub::DeviceRadixSort::SortKeys(nullptr, c_keys, k_in, kb_, n, 0, 32, s));
  size_t t_ids = 0;
  for (int bits : kIdBits) {
    const IdLowBits id{(1u << bits) - 1};
    size_t lsd = 0;
    BENCH_TRY(ctx, prim::iterative_split(nullptr, lsd, k_in, ka, n, bits, id, s));
    t_ids = std::max(t_ids, lsd);
    BENCH_TRY(ctx, prim::iterative_split(nullptr, lsd, k_in, ka, n, bits, prim::KeyBits<uint32_t>{0, bits}, s));
    t_ids = std::max(t_ids, lsd);
  }
  const size_t temp_bytes =
      std::max({t_split_pairs, t_split_pairs_key_bits, t_split_pairs_unstable, t_split_2048, t_split_2048_unstable, t_split, t_split_255, t_index,
                t_index_2048, t_sort_k, t_sort_p, c_pairs, c_sort_pairs_ids, c_sort_pairs_ids_seq, c_keys, t_ids});
  Buffer temp(temp_bytes);
  BENCH_TRY(ctx, temp.status());
  void* t = temp.get();
  const std::string d = dist_name(dist);

  // ---- stable 256-way split of pairs by key bits [0, 8) vs SortPairs [0, 8) ----
  // prim::KeyBits: the bucket of CUB's bit range, a single SplitSort pass (split_lsd.cuh); then the same split by a
  // functor the library cannot see into (the same one-sweep pass, whose kernels also hold a general tile for
  // out-of-range buckets).
  measure(ctx, Row{"split pairs u32+u32, bucket = key[0,8)", "cub SortPairs bits [0,8)", d, n, 0, 0, 0, 16.0 * n, 1.3, ""},
      [&] {
        size_t b = temp_bytes;
        return prim::split_pairs(t, b, k_in, ka, v_in, va, n, 256, prim::KeyBits<uint32_t>{0, 8}, offs, s);
      },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortPairs(t, b, k_in, kb_, v_in, vb, n, 0, 8, s); },
      [&] {
        const std::string k = equal_or("keys", ka, kb_, kb, s);
        return k != "ok" ? k : equal_or("values", va, vb, kb, s);
      });
  measure(ctx, Row{"split pairs u32+u32, bucket = key[0,8) by a functor", "cub SortPairs bits [0,8)", d, n, 0, 0, 0, 16.0 * n, 0, ""},
      [&] { size_t b = temp_bytes; return prim::split_pairs(t, b, k_in, ka, v_in, va, n, 256, LowByte{}, offs, s); },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortPairs(t, b, k_in, kb_, v_in, vb, n, 0, 8, s); },
      [&] {
        const std::string k = equal_or("keys", ka, kb_, kb, s);
        return k != "ok" ? k : equal_or("values", va, vb, kb, s);
      });

  // ---- the same, SplitOrder::unstable (cursor bases: no look-back) vs the same peer; no target ratio was set for it ----
  measure(ctx, Row{"split pairs unstable u32+u32, key[0,8)", "cub SortPairs bits [0,8)", d, n, 0, 0, 0, 16.0 * n, 0, ""},
      [&] {
        size_t b = temp_bytes;
        return prim::split_pairs(t, b, k_in, ka, v_in, va, n, 256, LowByte{}, offs, s, prim::SplitOrder::unstable);
      },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortPairs(t, b, k_in, kb_, v_in, vb, n, 0, 8, s); },
      [&] { return unstable_pairs_or(k_in, ka, va, kb_, n, 0xFFu, s); });

  // ---- 2048 buckets (key bits [0, 11)): two 8-bit passes, stable and unstable, vs SortPairs bits [0, 11) ----
  measure(ctx, Row{"split pairs u32+u32, 2048 buckets = key[0,11)", "cub SortPairs bits [0,11)", d, n, 0, 0, 0, 16.0 * n, 0, ""},
      [&] { size_t b = temp_bytes; return prim::split_pairs(t, b, k_in, ka, v_in, va, n, 2048, Low11Bits{}, offs, s); },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortPairs(t, b, k_in, kb_, v_in, vb, n, 0, 11, s); },
      [&] {
        const std::string k = equal_or("keys", ka, kb_, kb, s);
        return k != "ok" ? k : equal_or("values", va, vb, kb, s);
      });
  measure(ctx, Row{"split pairs unstable u32+u32, 2048 buckets", "cub SortPairs bits [0,11)", d, n, 0, 0, 0, 16.0 * n, 0, ""},
      [&] {
        size_t b = temp_bytes;
        return prim::split_pairs(t, b, k_in, ka, v_in, va, n, 2048, Low11Bits{}, offs, s, prim::SplitOrder::unstable);
      },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortPairs(t, b, k_in, kb_, v_in, vb, n, 0, 11, s); },
      [&] { return unstable_pairs_or(k_in, ka, va, kb_, n, 0x7FFu, s); });

  // The peer of the functor splits of keys: the u8 bucket id of every key, then CUB's sort of (id, key) pairs by id.
  const auto ids_then_sort_keys_by_them = [&] {
    size_t b = temp_bytes;
    PRIM_TRY(bucket_ids<false>(k_in, ids.as<uint8_t>(), nullptr, n, s));
    return cub::DeviceRadixSort::SortPairs(t, b, ids.as<uint8_t>(), ids_out.as<uint8_t>(), k_in, kb_, n, 0, 8, s);
  };

  // ---- stable 256-way split of keys by a bucket functor vs id kernel + SortPairs(ids, keys) [0, 8) ----
  measure(ctx, Row{"split u32 keys by functor (256 buckets)", "u8 id kernel + cub SortPairs(ids, keys) [0,8)", d, n, 0, 0, 0, 8.0 * n, 2.0, ""},
      [&] { size_t b = temp_bytes; return prim::split(t, b, k_in, ka, n, 256, HashBucket{}, offs, s); },
      ids_then_sort_keys_by_them,
      [&] { return equal_or("keys", ka, kb_, kb, s); });

  // ---- the same split into 255 buckets: the hash's bucket 255 (about one record in 256) is out of range, counted and
  // dropped, so the one-sweep pass runs its kernel for input with invalid records (general tiles). The peer sorts
  // every record: ours must equal its first offsets[255] keys. No target. ----
  measure(ctx, Row{"split u32 keys by functor (255 buckets, ~1/256 out of range)", "u8 id kernel + cub SortPairs(ids, keys) [0,8)", d, n, 0, 0, 0, 8.0 * n, 0, ""},
      [&] { size_t b = temp_bytes; return prim::split(t, b, k_in, ka, n, 255, HashBucket{}, offs, s); },
      ids_then_sort_keys_by_them,
      [&] {
        uint64_t valid = 0;
        if (cudaMemcpyAsync(&valid, offs + 255, sizeof(valid), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
            cudaStreamSynchronize(s) != cudaSuccess || valid > static_cast<uint64_t>(n)) {
          return std::string("MISMATCH: no valid record count");
        }
        return equal_or("keys", ka, kb_, valid * sizeof(uint32_t), s);
      });

  // ---- split-index (gather permutation) vs ids + counting values + SortPairs [0, 8) ----
  measure(ctx, Row{"split-index u32 gather permutation", "u8 ids + counting values + cub SortPairs [0,8)", d, n, 0, 0, 0, 8.0 * n, 2.5, ""},
      [&] {
        size_t b = temp_bytes;
        return prim::split_index(t, b, k_in, n, 256, HashBucket{}, va, prim::PermutationKind::gather, offs, s);
      },
      [&] {
        size_t b = temp_bytes;
        PRIM_TRY(bucket_ids<true>(k_in, ids.as<uint8_t>(), vb, n, s));
        // The sequence goes in vb, the sorted permutation in vals_a's peer twin: sort from vb into keys_b.
        return cub::DeviceRadixSort::SortPairs(t, b, ids.as<uint8_t>(), ids_out.as<uint8_t>(), vb, kb_, n, 0, 8, s);
      },
      [&] { return equal_or("permutations", va, kb_, kb, s); });

  // ---- split-index with 2048 buckets (key bits [0, 11)) vs SortPairs(keys, counting values) bits [0, 11): the
  // sorted values are the stable gather permutation; no target ratio was set for it ----
  measure(ctx, Row{"split-index u32 gather permutation, 2048 buckets", "cub SortPairs(keys, counting values) [0,11)", d, n, 0, 0, 0, 8.0 * n, 0, ""},
      [&] {
        size_t b = temp_bytes;
        return prim::split_index(t, b, k_in, n, 2048, Low11Bits{}, va, prim::PermutationKind::gather, offs, s);
      },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortPairs(t, b, k_in, kb_, v_in, vb, n, 0, 11, s); },
      [&] { return equal_or("permutations", va, vb, kb, s); });

  // ---- the iterative (LSD) split of u32 keys by their low 12 / 16 / 22 bits as ids, vs SortKeys on the same bits:
  // the ids as prim::KeyBits (SplitSort's passes on the bit range; target 1.0), and as any other functor (its first
  // pass tests every id's width; no target) ----
  for (int bits : kIdBits) {
    const std::string b = std::to_string(bits);
    const prim::KeyBits<uint32_t> key_bits{0, bits};
    measure(ctx, Row{"id split LSD u32, " + b + "-bit ids = KeyBits", "cub SortKeys bits [0," + b + ")", d, n, 0, 0, 0,
                     8.0 * n, 1.0, ""},
        [&] {
          size_t tb = temp_bytes;
          return prim::iterative_split(t, tb, k_in, ka, n, bits, key_bits, s);
        },
        [&] { size_t tb = temp_bytes; return cub::DeviceRadixSort::SortKeys(t, tb, k_in, kb_, n, 0, bits, s); },
        [&] { return equal_or("keys", ka, kb_, kb, s); });
    const IdLowBits id{(1u << bits) - 1};
    measure(ctx, Row{"id split LSD u32, " + b + "-bit ids, a functor", "cub SortKeys bits [0," + b + ")", d, n, 0, 0,
                     0, 8.0 * n, 0, ""},
        [&] {
          size_t tb = temp_bytes;
          return prim::iterative_split(t, tb, k_in, ka, n, bits, id, s);
        },
        [&] { size_t tb = temp_bytes; return cub::DeviceRadixSort::SortKeys(t, tb, k_in, kb_, n, 0, bits, s); },
        [&] { return equal_or("keys", ka, kb_, kb, s); });
  }

  // ---- SplitSort vs CUB radix sort, all 32 bits ----
  measure(ctx, Row{"SplitSort u32 keys", "cub SortKeys", d, n, 0, 0, 0, 8.0 * n, 1.0, ""},
      [&] { size_t b = temp_bytes; return prim::sort_keys(t, b, k_in, ka, n, 0, 32, s); },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortKeys(t, b, k_in, kb_, n, 0, 32, s); },
      [&] { return equal_or("keys", ka, kb_, kb, s); });
  measure(ctx, Row{"SplitSort u32+u32 pairs", "cub SortPairs", d, n, 0, 0, 0, 16.0 * n, 1.0, ""},
      [&] { size_t b = temp_bytes; return prim::sort_pairs(t, b, k_in, ka, v_in, va, n, 0, 32, s); },
      [&] { size_t b = temp_bytes; return cub::DeviceRadixSort::SortPairs(t, b, k_in, kb_, v_in, vb, n, 0, 32, s); },
      [&] {
        const std::string k = equal_or("keys", ka, kb_, kb, s);
        return k != "ok" ? k : equal_or("values", va, vb, kb, s);
      });

  // ---- segmented split, 256 buckets (key bits [0, 8)), equal segments of 2^8 and 2^16 keys ----
  for (int log_seg : {8, 16}) {
    const int64_t seg = int64_t(1) << log_seg;
    if (seg > n) continue;
    const int64_t num_segments = n / seg;
    std::vector<uint64_t> h_offsets(num_segments + 1);
    for (int64_t i = 0; i <= num_segments; ++i) h_offsets[i] = uint64_t(i * seg);
    Buffer seg_offsets(sizeof(uint64_t) * h_offsets.size());
    BENCH_TRY(ctx, seg_offsets.status());
    // Upload on `s` (a cudaStreamNonBlocking stream) and wait: a plain cudaMemcpy from pageable memory runs on the
    // legacy stream, which a non-blocking stream does not wait for, and may return before the DMA has landed, so
    // the first (check) call could read stale offsets (wrong output or an illegal address, intermittently).
    BENCH_TRY(ctx, cudaMemcpyAsync(seg_offsets.get(), h_offsets.data(), sizeof(uint64_t) * h_offsets.size(),
                                   cudaMemcpyHostToDevice, s));
    BENCH_TRY(ctx, cudaStreamSynchronize(s));
    const uint64_t* so = seg_offsets.as<uint64_t>();
    // The bucket of CUB's bits [0, 8): prim::KeyBits, whose declared bound lets the cluster path (segments of 2^16)
    // skip its bucket test; the same split by a functor that declares nothing is a row of its own.
    const auto segmented_row = [&](auto bucket_of, const std::string& op, double target,
                                   prim::SegmentedSplitOptions options) {
      size_t t_ours = 0, t_peer = 0;
      BENCH_TRY(ctx, prim::segmented_split(nullptr, t_ours, k_in, ka, n, so, num_segments, 256, bucket_of, nullptr, s,
                                           nullptr, options));
      BENCH_TRY(ctx, cub::DeviceSegmentedRadixSort::SortKeys(nullptr, t_peer, k_in, kb_, n, num_segments, so, so + 1, 0, 8, s));
      Buffer seg_temp(std::max(t_ours, t_peer));
      BENCH_TRY(ctx, seg_temp.status());
      void* st = seg_temp.get();
      measure(ctx, Row{op, "cub DeviceSegmentedRadixSort::SortKeys [0,8)", d, n, 0, 0, 0, 8.0 * n, target, ""},
          [&] {
            size_t b = t_ours;
            return prim::segmented_split(st, b, k_in, ka, n, so, num_segments, 256, bucket_of, nullptr, s, nullptr,
                                         options);
          },
          [&] {
            size_t b = t_peer;
            return cub::DeviceSegmentedRadixSort::SortKeys(st, b, k_in, kb_, n, static_cast<int>(num_segments), so, so + 1, 0, 8, s);
          },
          [&] { return equal_or("keys", ka, kb_, kb, s); });
    };
    const std::string op = "segmented split u32 keys, segments of 2^" + std::to_string(log_seg);
    segmented_row(prim::KeyBits<uint32_t>{0, 8}, op, log_seg == 8 ? 5.0 : 1.5, {});
    if (log_seg == 16) segmented_row(LowByte{}, op + " (a functor with no declared bound)", 0.0, {});
    // The renderer's setting: every segment through the tile engine, a block a tile (what the other paths cost).
    if (log_seg == 8) {
      prim::SegmentedSplitOptions tile_engine_only;
      tile_engine_only.large_segment_path = false;
      segmented_row(prim::KeyBits<uint32_t>{0, 8}, op + " (large_segment_path = false)", 0.0, tile_engine_only);
    }
  }
}

}  // namespace bench
