// PASSES: ttl-check-dfb-protocol,ttl-compute-lifetimes,ttl-check-allocation-groups --verify-diagnostics
// Without the handoff, g.make may reserve @second while g.use still holds @first's
// block: the members' accesses are not ordered, an error at the member (the
// driver reports it at the DFB's Python declaration).

builtin.module {
  ttl.operation @g attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @first {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, allocation_group = 0 : i64}
    ttl.dfb @second {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, allocation_group = 0 : i64}
    ttl.kernel @make attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "g.make"} {
      %first = ttl.get_dfb @first : !ttl.dfb<1x1xbf16>
      %second = ttl.get_dfb @second : !ttl.dfb<1x1xbf16>
      %b0 = ttl.reserve %first : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b0 : !ttl.block<1x1xbf16>
      %b1 = ttl.reserve %second : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b1 : !ttl.block<1x1xbf16>
    }
    ttl.kernel @use attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "g.use"} {
      %first = ttl.get_dfb @first : !ttl.dfb<1x1xbf16>
      %second = ttl.get_dfb @second : !ttl.dfb<1x1xbf16>
      %w0 = ttl.wait %first : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %w0 : !ttl.block<1x1xbf16>
      %w1 = ttl.wait %second : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %w1 : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK:      error: DFBs 'first' and 'second' share an allocation group, but the compiler cannot prove that every access of one completes before the other's first access on every node (the spec requires it)
// CHECK-NEXT:   at: ttl.dfb @second (pass ttl-check-allocation-groups)
// CHECK-NEXT: hint: finish with one DFB
