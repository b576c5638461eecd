// Host dispatch of gather / scatter (prim/gather_scatter.h): pick the vector width and group size of a
// record, plan the scatter passes, launch; explicit instantiations for the supported map index types.
#include <algorithm>

#include "prim/detail/agent/gather_scatter_agent.cuh"
#include "prim/gather_scatter.h"

namespace prim {

RecordPlan plan_record(size_t record_bytes, const void* d_in, const void* d_out) {
  const uint64_t alignment_mask = record_bytes | reinterpret_cast<uintptr_t>(d_in) | reinterpret_cast<uintptr_t>(d_out);
  uint32_t vector_bytes = detail::GatherScatterPolicy::kMaxVectorBytes;
  while (vector_bytes > 1 && (alignment_mask & (vector_bytes - 1)) != 0) vector_bytes /= 2;
  RecordPlan plan{vector_bytes, static_cast<uint32_t>(record_bytes / vector_bytes), 1};
  while (plan.group_lanes < plan.vectors_per_record &&
         plan.group_lanes < static_cast<uint32_t>(detail::GatherScatterPolicy::kMaxGroupLanes)) {
    plan.group_lanes *= 2;
  }
  return plan;
}

uint32_t scatter_auto_passes(size_t record_bytes, uint64_t out_bytes, uint64_t l2_bytes) {
  // Measured on the H100 (50 MiB L2; docs/bench/README.md, prim_bench --sweep-passes): a record narrower than a
  // 32-byte sector makes a one-pass random scatter write partial sectors all over DRAM; confining each pass to a
  // window of half the L2 lets a window's sectors fill up in L2 before they are written back. Every pass re-reads
  // the map and the source (streaming), so it pays only while the passes are few: 4-byte records won up to 16
  // passes (2.1x at 64 MiB of destination, 1.2x at 256 MiB), 8- and 16-byte records up to about 8 (1.5x at
  // 128 MiB of 8-byte records) and lost beyond; no size won with records of >= 32 bytes (whole-sector vector
  // stores), nor with destinations that fit in L2.
  constexpr size_t kSectorBytes = 32;
  if (record_bytes >= kSectorBytes || l2_bytes == 0 || out_bytes <= l2_bytes) return 1;
  const uint64_t window = l2_bytes / 2;
  const uint64_t passes = (out_bytes + window - 1) / window;
  const uint64_t max_passes = record_bytes <= 4 ? 16 : 8;
  return passes <= max_passes ? static_cast<uint32_t>(passes) : 1;
}

namespace {

uint32_t log2_exact(uint32_t v) {
  uint32_t l = 0;
  while ((1u << l) < v) ++l;
  return l;
}

template <typename Vec, typename Index, bool kScatter>
cudaError_t launch(const void* d_in, void* d_out, const Index* d_map, const detail::GatherScatterArgs& args,
                   cudaStream_t stream) {
  using P = detail::GatherScatterPolicy;
  const int64_t records_per_tile = int64_t(P::kBlockThreads >> args.log_group_lanes) * P::kRecordsPerGroup;
  const int64_t tiles = (args.max_n + records_per_tile - 1) / records_per_tile;
  if (tiles > int64_t(std::numeric_limits<int32_t>::max())) return cudaErrorInvalidConfiguration;
  detail::gather_scatter_kernel<P, Vec, Index, kScatter><<<static_cast<unsigned>(tiles), P::kBlockThreads, 0, stream>>>(
      static_cast<const Vec*>(d_in), static_cast<Vec*>(d_out), d_map, args);
  return cudaGetLastError();
}

template <typename Index, bool kScatter>
cudaError_t launch_any_vector(const RecordPlan& plan, const void* d_in, void* d_out, const Index* d_map,
                              const detail::GatherScatterArgs& args, cudaStream_t stream) {
  switch (plan.vector_bytes) {
    case 16: return launch<uint4, Index, kScatter>(d_in, d_out, d_map, args, stream);
    case 8: return launch<uint2, Index, kScatter>(d_in, d_out, d_map, args, stream);
    case 4: return launch<uint32_t, Index, kScatter>(d_in, d_out, d_map, args, stream);
    case 2: return launch<uint16_t, Index, kScatter>(d_in, d_out, d_map, args, stream);
    default: return launch<uint8_t, Index, kScatter>(d_in, d_out, d_map, args, stream);
  }
}

// What the size query reports: gather and scatter use no scratch, but a call must still pass this much (the library's
// convention), and Workspace needs a non-zero size to pass a real pointer on its second call.
constexpr size_t kReportedTempBytes = 1;

// Shared front half of both entry points: validation, the size query and the scratch check.
cudaError_t begin_call(void* d_temp, size_t& temp_bytes, const void* d_in, void* d_out, const void* d_map,
                       const ItemCount& n, int64_t bound, size_t record_bytes, bool& done) {
  done = true;
  if (n.max < 0 || bound < 0 || record_bytes == 0) return cudaErrorInvalidValue;
  if (d_temp == nullptr) {  // no scratch needed; report 1 byte so Workspace passes a real pointer next time
    temp_bytes = kReportedTempBytes;
    return cudaSuccess;
  }
  // The convention of every call: fewer bytes than the size query reported is an error, even where none is used.
  if (temp_bytes < kReportedTempBytes) return cudaErrorInvalidValue;
  if (n.max == 0) return cudaSuccess;
  if (d_in == nullptr || d_out == nullptr || d_map == nullptr) return cudaErrorInvalidValue;
  done = false;
  return cudaSuccess;
}

}  // namespace

template <typename Index>
cudaError_t gather_bytes(void* d_temp, size_t& temp_bytes, const void* d_in, void* d_out, const Index* d_map,
                         ItemCount n, int64_t in_size, size_t record_bytes, cudaStream_t stream,
                         uint64_t* d_num_invalid) {
  bool done = false;
  PRIM_TRY(begin_call(d_temp, temp_bytes, d_in, d_out, d_map, n, in_size, record_bytes, done));
  if (done) return cudaSuccess;
  const RecordPlan plan = plan_record(record_bytes, d_in, d_out);
  const detail::GatherScatterArgs args{n.max, n.device, in_size, 0, in_size, plan.vectors_per_record,
                                       log2_exact(plan.group_lanes), d_num_invalid, true};
  return launch_any_vector<Index, false>(plan, d_in, d_out, d_map, args, stream);
}

template <typename Index>
cudaError_t scatter_bytes(void* d_temp, size_t& temp_bytes, const void* d_in, void* d_out, const Index* d_map,
                          ItemCount n, int64_t out_size, size_t record_bytes, cudaStream_t stream,
                          uint64_t* d_num_invalid, ScatterOptions options) {
  bool done = false;
  PRIM_TRY(begin_call(d_temp, temp_bytes, d_in, d_out, d_map, n, out_size, record_bytes, done));
  if (done) return cudaSuccess;
  uint32_t passes = options.passes;
  if (passes == 0) {
    int device = 0, l2 = 0;
    PRIM_TRY(cudaGetDevice(&device));
    PRIM_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    passes = scatter_auto_passes(record_bytes, uint64_t(out_size) * record_bytes, uint64_t(l2));
  }
  const int64_t window = out_size == 0 ? 1 : (out_size + passes - 1) / passes;
  const RecordPlan plan = plan_record(record_bytes, d_in, d_out);
  for (uint32_t p = 0; p < passes; ++p) {
    const int64_t lo = int64_t(p) * window;
    const int64_t hi = p + 1 == passes ? out_size : std::min(out_size, lo + window);
    const detail::GatherScatterArgs args{n.max, n.device, out_size, lo, hi, plan.vectors_per_record,
                                         log2_exact(plan.group_lanes), d_num_invalid, p == 0};
    PRIM_TRY((launch_any_vector<Index, true>(plan, d_in, d_out, d_map, args, stream)));
  }
  return cudaSuccess;
}

#define PRIM_GATHER_SCATTER_INSTANTIATE(Index)                                                            \
  template cudaError_t gather_bytes<Index>(void*, size_t&, const void*, void*, const Index*, ItemCount,  \
                                           int64_t, size_t, cudaStream_t, uint64_t*);                    \
  template cudaError_t scatter_bytes<Index>(void*, size_t&, const void*, void*, const Index*, ItemCount, \
                                            int64_t, size_t, cudaStream_t, uint64_t*, ScatterOptions);
PRIM_GATHER_SCATTER_INSTANTIATE(int32_t)
PRIM_GATHER_SCATTER_INSTANTIATE(uint32_t)
PRIM_GATHER_SCATTER_INSTANTIATE(int64_t)
PRIM_GATHER_SCATTER_INSTANTIATE(uint64_t)
#undef PRIM_GATHER_SCATTER_INSTANTIATE

}  // namespace prim
