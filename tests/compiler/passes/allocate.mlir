// PASSES: ttl-allocate-dfbs
// Physical DFB indices from the recorded lifetimes and protocol verdicts: a
// DFB shares the lowest index whose DFBs are all bounded (balanced, one
// kernel, no opaque access), in its kernel, over disjoint statement spans, with
// the same configuration; anything else takes a fresh index.

builtin.module {
  ttl.operation @al attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @x {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["al.k"], span [0, 3]>}
    ttl.dfb @y {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["al.k"], span [4, 7]>}
    ttl.dfb @other_shape {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x2xbf16>, protocol = #ttl.protocol<balanced [2]>, lifetime = #ttl.lifetime<kernels ["al.k"], span [8, 9]>}
    ttl.dfb @two_kernels {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["al.k", "al.j"]>}
    ttl.dfb @overlaps {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["al.k"], span [2, 5]>}
    ttl.dfb @no_lifetime {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>}
    ttl.dfb @unproven {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<unknown "a while loop">, lifetime = #ttl.lifetime<kernels ["al.k"], span [10, 11]>}
    ttl.dfb @opaque {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["al.k"], span [13, 13], opaque "external call 'f' sets unknown_dfb_access">}
    ttl.dfb @late {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["al.k"], span [12, 12]>}
  }
}

// CHECK: ttl.dfb @x {{{.*}}physical_index = 0 : i64}
// CHECK: ttl.dfb @y {{{.*}}physical_index = 0 : i64}
// CHECK: ttl.dfb @other_shape {{{.*}}physical_index = 1 : i64}
// CHECK: ttl.dfb @two_kernels {{{.*}}physical_index = 2 : i64}
// CHECK: ttl.dfb @overlaps {{{.*}}physical_index = 3 : i64}
// CHECK: ttl.dfb @no_lifetime {{{.*}}physical_index = 4 : i64}
// CHECK: ttl.dfb @unproven {{{.*}}physical_index = 5 : i64}
// CHECK: ttl.dfb @opaque {{{.*}}physical_index = 6 : i64}
// CHECK: ttl.dfb @late {{{.*}}physical_index = 0 : i64}
