// PASSES: ttl-allocate-dfbs
// Alone on IR without analysis results nothing is proven: one index per DFB,
// in declaration order (an index already present is recomputed).

builtin.module {
  ttl.operation @o attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @p {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, physical_index = 7 : i64}
    ttl.dfb @q {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.dfb @r {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
  }
}

// CHECK: ttl.dfb @p {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, physical_index = 0 : i64}
// CHECK: ttl.dfb @q {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, physical_index = 1 : i64}
// CHECK: ttl.dfb @r {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, physical_index = 2 : i64}
