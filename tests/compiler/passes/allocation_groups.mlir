// PASSES: ttl-check-dfb-protocol,ttl-compute-lifetimes,ttl-check-allocation-groups,ttl-allocate-dfbs
// A DFB allocation group whose members are used one after the other: @first is
// consumed by g.use, which then pushes @handoff; g.make waits for it before it
// reserves @second. The members share one index (the pass adds no attribute of
// its own; ttl-allocate-dfbs puts them together).

builtin.module {
  ttl.operation @g attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @first {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x2xbf16>, allocation_group = 0 : i64}
    ttl.dfb @second {tensor = @a, block_count = 4 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, allocation_group = 0 : i64}
    ttl.dfb @handoff {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @make attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "g.make"} {
      %first = ttl.get_dfb @first : !ttl.dfb<1x2xbf16>
      %second = ttl.get_dfb @second : !ttl.dfb<1x1xbf16>
      %handoff = ttl.get_dfb @handoff : !ttl.dfb<1x1xbf16>
      %b0 = ttl.reserve %first : !ttl.dfb<1x2xbf16> -> !ttl.block<1x2xbf16>
      ttl.push %b0 : !ttl.block<1x2xbf16>
      %h = ttl.wait %handoff : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %h : !ttl.block<1x1xbf16>
      %b1 = ttl.reserve %second : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b1 : !ttl.block<1x1xbf16>
    }
    ttl.kernel @use attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "g.use"} {
      %first = ttl.get_dfb @first : !ttl.dfb<1x2xbf16>
      %second = ttl.get_dfb @second : !ttl.dfb<1x1xbf16>
      %handoff = ttl.get_dfb @handoff : !ttl.dfb<1x1xbf16>
      %w0 = ttl.wait %first : !ttl.dfb<1x2xbf16> -> !ttl.block<1x2xbf16>
      ttl.pop %w0 : !ttl.block<1x2xbf16>
      %h = ttl.reserve %handoff : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %h : !ttl.block<1x1xbf16>
      %w1 = ttl.wait %second : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %w1 : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK: ttl.dfb @first {{{.*}}physical_index = 0 : i64
// CHECK: ttl.dfb @second {{{.*}}physical_index = 0 : i64
// CHECK: ttl.dfb @handoff {{{.*}}physical_index = 1 : i64
