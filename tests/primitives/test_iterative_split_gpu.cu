// Iterative split (LSD) vs the C++ reference.
#include <prim/iterative_split.h>

#include <random>

#include "primitives/test_split_check.h"
#include "primitives/test_split_util.h"
#include "primitives/reference/split_reference.h"

namespace {
using namespace split_test;

// Records carry their own 64-bit id (so the id functor is a plain field read on host and device).
struct IdRec {
  uint64_t id;
  uint32_t pos;
  uint32_t pad;
};
struct IdOf {
  __host__ __device__ uint64_t operator()(const IdRec& r) const { return r.id; }
};

std::vector<IdRec> make_id_records(size_t n, int id_bits, uint64_t seed, bool skewed, bool with_invalid) {
  std::mt19937_64 rng(seed);
  std::vector<IdRec> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t id = rng();
    if (skewed) id = (rng() % 8 == 0) ? id : 12345;  // most records share one id: one huge segment
    if (id_bits < 64) id &= (uint64_t{1} << id_bits) - 1;
    if (id_bits == 0) id = 0;
    if (with_invalid && id_bits < 64 && i % 17 == 5) id = (uint64_t{1} << id_bits) + (rng() % 1000);
    v[i] = {id, static_cast<uint32_t>(i), 0};
  }
  return v;
}

void check_iterative(const std::vector<IdRec>& in, int id_bits, bool device_count = false) {
  const int64_t n = static_cast<int64_t>(in.size());
  DeviceBuffer<IdRec> d_in, d_out(std::max<int64_t>(n, 1));
  d_in.upload(in);
  if (in.empty()) d_in.resize(1);
  d_out.poison();
  DeviceBuffer<uint64_t> d_scalars(2);
  const std::vector<uint64_t> h{0, static_cast<uint64_t>(n)};
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), h.data(), sizeof(uint64_t) * 2, cudaMemcpyHostToDevice));
  const prim::ItemCount count = device_count ? prim::ItemCount(n + 4000, d_scalars.get() + 1) : prim::ItemCount(n);
  if (device_count) d_out.resize(static_cast<size_t>(n + 4000));
  d_out.poison();
  size_t bytes = 0;
  auto call = [&](void* temp) {
    return prim::iterative_split(temp, bytes, d_in.get(), d_out.get(), count, id_bits, IdOf{}, 0, d_scalars.get());
  };
  ASSERT_CUDA(call(nullptr));
  DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison();
  ASSERT_CUDA(call(d_temp.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<IdRec> want(in.size());
  const uint64_t want_invalid = prim::reference::iterative_split(in.data(), want.data(), n, id_bits, IdOf{});
  EXPECT_EQ(d_scalars.download(1)[0], want_invalid);
  const size_t valid = in.size() - want_invalid;
  const std::vector<IdRec> got = d_out.download(valid);
  for (size_t i = 0; i < valid; ++i) {
    ASSERT_EQ(got[i].id, want[i].id) << "at " << i;
    ASSERT_EQ(got[i].pos, want[i].pos) << "at " << i << " (stability)";
  }
}

struct Id18 {  // the key itself as an 18-bit id
  __host__ __device__ uint64_t operator()(const uint32_t& k) const { return k; }
};

TEST(IterativeSplit, IdWidths) {
  for (int id_bits : {0, 1, 8, 9, 11, 12, 16, 19, 22, 24, 33, 64}) {
    SCOPED_TRACE(id_bits);
    check_iterative(make_id_records(100003, id_bits, id_bits, false, false), id_bits);
  }
}

TEST(IterativeSplit, EmptyAndTiny) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{33}}) {
    check_iterative(make_id_records(n, 16, n, false, false), 16);
  }
}

TEST(IterativeSplit, OutOfRangeIdIsReportedNotWritten) {
  for (int id_bits : {0, 5, 16, 30}) {
    SCOPED_TRACE(id_bits);
    check_iterative(make_id_records(60001, id_bits, 100 + id_bits, false, true), id_bits);
  }
}

TEST(IterativeSplit, SkewedIdsMakeLargeSegments) {
  for (int id_bits : {14, 20, 40}) {
    SCOPED_TRACE(id_bits);
    check_iterative(make_id_records(300007, id_bits, 200 + id_bits, true, true), id_bits);
  }
}

TEST(IterativeSplit, LargeUniform) {
  check_iterative(make_id_records(size_t{1} << 22, 20, 300, false, false), 20);
}

TEST(IterativeSplit, DeviceResidentCount) {
  check_iterative(make_id_records(50000, 18, 400, false, true), 18, true);
}

// A device count above its host bound: nothing is written and every record counts as invalid (the one-sweep route
// of an 18-bit LSD split counts them in its histogram).
TEST(IterativeSplit, DeviceCountAboveItsBoundWritesNothing) {
  const std::vector<IdRec> in = make_id_records(3000, 18, 500, false, false);
  DeviceBuffer<IdRec> d_in, d_out(in.size());
  d_in.upload(in);
  d_out.poison();
  DeviceBuffer<uint64_t> d_scalars(2);
  const std::vector<uint64_t> h{0, 2500};  // invalid counter, device count (> the bound of 2000)
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), h.data(), sizeof(uint64_t) * 2, cudaMemcpyHostToDevice));
  const prim::ItemCount count(2000, d_scalars.get() + 1);
  size_t bytes = 0;
  auto call = [&](void* temp) {
    return prim::iterative_split(temp, bytes, d_in.get(), d_out.get(), count, 18, IdOf{}, 0, d_scalars.get());
  };
  ASSERT_CUDA(call(nullptr));
  DeviceBuffer<unsigned char> d_temp(bytes);
  ASSERT_CUDA(call(d_temp.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(d_scalars.download(1)[0], 2500u);
  expect_poison_after(d_out.download(), 0);
}

// 4-byte keys and pairs, checked against a std::stable_sort by id of the records counted: `n` random keys (values:
// their positions), counted by the host (device_count < 0) or by a device count with the host bound n; a device count
// above its bound writes nothing and counts every record invalid. Ids at or above 2^id_bits are dropped and counted.
template <class IdOp>
void check_u32_split(size_t n, IdOp id_of, int id_bits, bool pairs, int64_t device_count = -1) {
  SCOPED_TRACE(testing::Message() << "n " << n << ", " << id_bits << "-bit ids" << (pairs ? ", pairs" : ", keys")
                                  << ", device count " << device_count);
  std::mt19937 rng(static_cast<uint32_t>(n * 31 + id_bits));
  std::vector<uint32_t> keys(n), values(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = rng();
    values[i] = static_cast<uint32_t>(i);
  }
  DeviceBuffer<uint32_t> d_k, d_v, d_ko(std::max<size_t>(n, 1)), d_vo(std::max<size_t>(n, 1));
  d_k.upload(keys);
  d_v.upload(values);
  if (n == 0) {
    d_k.resize(1);
    d_v.resize(1);
  }
  d_ko.poison();
  d_vo.poison();
  DeviceBuffer<uint64_t> d_scalars(2);  // the invalid counter, the device count
  const std::vector<uint64_t> h{0, static_cast<uint64_t>(device_count < 0 ? 0 : device_count)};
  ASSERT_CUDA(cudaMemcpy(d_scalars.get(), h.data(), sizeof(uint64_t) * 2, cudaMemcpyHostToDevice));
  const prim::ItemCount count = device_count < 0 ? prim::ItemCount(static_cast<int64_t>(n))
                                                 : prim::ItemCount(static_cast<int64_t>(n), d_scalars.get() + 1);
  size_t bytes = 0;
  auto call = [&](void* temp) {
    return pairs ? prim::iterative_split_pairs(temp, bytes, d_k.get(), d_ko.get(), d_v.get(), d_vo.get(), count,
                                               id_bits, id_of, 0, d_scalars.get())
                 : prim::iterative_split(temp, bytes, d_k.get(), d_ko.get(), count, id_bits, id_of, 0,
                                         d_scalars.get());
  };
  ASSERT_CUDA(call(nullptr));
  DeviceBuffer<unsigned char> d_temp(std::max<size_t>(bytes, 1));
  d_temp.poison();
  ASSERT_CUDA(call(d_temp.get()));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const std::vector<uint32_t> got_k = d_ko.download(), got_v = d_vo.download();
  if (device_count > static_cast<int64_t>(n)) {
    EXPECT_EQ(d_scalars.download(1)[0], static_cast<uint64_t>(device_count)) << "all invalid";
    expect_poison_after(got_k, 0);
    return;
  }
  const size_t counted = device_count < 0 ? n : static_cast<size_t>(device_count);
  std::vector<size_t> order;
  for (size_t i = 0; i < counted; ++i) {
    if (id_bits >= 64 || (static_cast<uint64_t>(id_of(keys[i])) >> id_bits) == 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return static_cast<uint64_t>(id_of(keys[a])) < static_cast<uint64_t>(id_of(keys[b]));
  });
  EXPECT_EQ(d_scalars.download(1)[0], counted - order.size()) << "invalid records";
  for (size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(got_k[i], keys[order[i]]) << "key at " << i;
    if (pairs) ASSERT_EQ(got_v[i], values[order[i]]) << "value at " << i << " (stability)";
  }
  if (n > 0) expect_poison_after(got_k, order.size());
  if (n > 0 && pairs) expect_poison_after(got_v, order.size());
}

// Any id functor: 4-byte records take the functor split's pass shapes (a clean-tile kernel beside a general one).
// The id is a hash of the key, so the order is not the keys' own; with `with_invalid` about 1 in 16 ids lies at or
// above 2^id_bits (pass 0 drops and counts them, in the tiles of the general kernel).
struct HashedId {
  int id_bits;
  bool with_invalid;
  __host__ __device__ uint64_t operator()(const uint32_t& k) const {
    const uint32_t h = (k ^ (k >> 15)) * 0x2C1B3C6Du;
    const uint64_t id = (h ^ (h >> 12)) & ((uint64_t{1} << id_bits) - 1);
    return with_invalid && (k & 15u) == 7u ? (uint64_t{1} << id_bits) + (k >> 4) : id;
  }
};

TEST(IterativeSplit, FourByteKeysAtTileEdges) {
  // Around the key pass's tiles (384 threads x up to 24 items) and their multiples, and a few million.
  for (size_t n : {size_t{0}, size_t{1}, size_t{383}, size_t{384 * 19 - 1}, size_t{384 * 19}, size_t{384 * 19 + 1},
                   size_t{384 * 24 + 1}, size_t{65537}, size_t{(1u << 20) + 3}, size_t{3000017}}) {
    for (int id_bits : {12, 16, 22}) {
      check_u32_split(n, HashedId{id_bits, false}, id_bits, false);
      check_u32_split(n, HashedId{id_bits, true}, id_bits, false);
    }
  }
}

TEST(IterativeSplit, FourByteKeysWideIdsPairsAndDeviceCount) {
  for (int id_bits : {1, 8, 9, 17, 24, 32}) {
    check_u32_split(200003, HashedId{id_bits, true}, id_bits, false);
    check_u32_split(200003, HashedId{id_bits, true}, id_bits, true);
  }
  check_u32_split(128457, HashedId{20, true}, 20, false, 123457);  // a device count below its bound
  check_u32_split(128457, HashedId{20, true}, 20, true, 123457);
}

// Ids that are a bit range of the key (prim::KeyBits) take SplitSort's passes on that range: the same stable order
// by those bits (the bits outside the range keep the input order), keys and pairs, never an invalid id.
TEST(IterativeSplit, KeyBitsIdsSortTheBitRange) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{384 * 19 + 1}, size_t{1000003}}) {
    check_u32_split(n, prim::KeyBits<uint32_t>{0, 12}, 12, false);
    check_u32_split(n, prim::KeyBits<uint32_t>{0, 22}, 22, true);
  }
  check_u32_split(300007, prim::KeyBits<uint32_t>{5, 16}, 16, false);   // a range that does not start at bit 0
  check_u32_split(300007, prim::KeyBits<uint32_t>{20, 12}, 12, true);   // the key's top bits
  check_u32_split(300007, prim::KeyBits<uint32_t>{3, 9}, 20, false);    // ids narrower than id_bits
  check_u32_split(300007, prim::KeyBits<uint32_t>{0, 32}, 32, true);    // the whole key
  check_u32_split(300007, prim::KeyBits<uint32_t>{0, 6}, 6, false);     // one pass
  check_u32_split(3000, prim::KeyBits<uint32_t>{0, 18}, 18, false, 2500);  // a device count below its bound
  check_u32_split(2000, prim::KeyBits<uint32_t>{0, 18}, 18, true, 2500);   // a device count above its bound
}

TEST(IterativeSplit, PairsLsd) {
  std::mt19937 rng(5);
  std::vector<uint32_t> keys(77777), values(77777);
  for (size_t i = 0; i < keys.size(); ++i) {
    keys[i] = rng() & 0x3FFFF;
    values[i] = static_cast<uint32_t>(i);
  }
  DeviceBuffer<uint32_t> d_k, d_v, d_ko(keys.size()), d_vo(keys.size());
  d_k.upload(keys);
  d_v.upload(values);
  prim::Workspace ws;
  ASSERT_CUDA(prim::iterative_split_pairs(ws, d_k.get(), d_ko.get(), d_v.get(), d_vo.get(),
                                          static_cast<int64_t>(keys.size()), 18, Id18{}));
  std::vector<uint32_t> wk(keys.size()), wv(keys.size());
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  for (size_t i = 0; i < order.size(); ++i) {
    wk[i] = keys[order[i]];
    wv[i] = values[order[i]];
  }
  EXPECT_EQ(d_ko.download(), wk);
  EXPECT_EQ(d_vo.download(), wv);
}

}  // namespace
