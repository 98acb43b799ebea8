// PASSES: ttl-check-allocation-groups --split-input-file --verify-diagnostics
// What makes a DFB unshareable, from the attributes ttl-check-dfb-protocol and
// ttl-compute-lifetimes recorded: an opaque access (an external call with no
// summary for it), and totals that differ between paths.

builtin.module {
  ttl.operation @g attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @first {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, allocation_group = 0 : i64, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["g.k"], span [0, 1]>}
    ttl.dfb @second {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, allocation_group = 0 : i64, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["g.k"], span [2, 3], opaque "external call 'f' has no dfb_effects for dependency 0, an opaque access for the whole call">}
  }
}

// CHECK:      error: DFB 'second' cannot join an allocation group: external call 'f' has no dfb_effects for dependency 0, an opaque access for the whole call
// CHECK-NEXT:   at: ttl.dfb @second (pass ttl-check-allocation-groups)
// CHECK-NEXT: hint: declare the external call's dfb_effects or dfb_accesses for it

// -----

builtin.module {
  ttl.operation @g attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @first {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, allocation_group = 0 : i64, protocol = #ttl.protocol<balanced [1, 2]>, lifetime = #ttl.lifetime<kernels ["g.k"], span [0, 1]>}
    ttl.dfb @second {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, allocation_group = 0 : i64, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["g.k"], span [2, 3]>}
  }
}

// CHECK:      error: DFB 'first' cannot join an allocation group: the compiler must know that every block pushed into it is popped, and how many, and its pages pushed and popped differ between paths
// CHECK-NEXT:   at: ttl.dfb @first (pass ttl-check-allocation-groups)
