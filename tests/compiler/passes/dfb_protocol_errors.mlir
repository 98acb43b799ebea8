// PASSES: ttl-check-dfb-protocol --split-input-file --verify-diagnostics
// Produced and consumed tile counts that cannot be equal on some path are an
// error at the ttl.dfb (the driver reports it at the DFB's Python declaration).

builtin.module {
  ttl.operation @e attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @buf {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "e.read"} {
      %buf = ttl.get_dfb @buf : !ttl.dfb<1x1xbf16>
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        %b = ttl.reserve %buf : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
        ttl.push %b : !ttl.block<1x1xbf16>
      }
    }
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "e.write"} {
      %buf = ttl.get_dfb @buf : !ttl.dfb<1x1xbf16>
      %b = ttl.wait %buf : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %b : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK:      error: DFB 'buf' is unbalanced: kernel 'e.read' pushes 2 tiles but kernel 'e.write' pops 1 tile
// CHECK-NEXT:   at: ttl.dfb @buf (pass ttl-check-dfb-protocol)
// CHECK-NEXT: hint: make the producers push as many tiles as the consumers pop on every path

// -----

// Only the reader is guarded by the declared condition: unbalanced when it is false.
builtin.module {
  ttl.operation @g attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @buf {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "g.read"} {
      %buf = ttl.get_dfb @buf : !ttl.dfb<1x1xbf16>
      %c0 = arith.constant 0 : i32
      %on = ttl.call_extern "h.hpp", "enabled"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<0, i32>} : (), (), () -> i32
      %t = arith.cmpi ne, %on, %c0 : i32
      scf.if %t {
        %b = ttl.reserve %buf : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
        ttl.push %b : !ttl.block<1x1xbf16>
      }
    }
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "g.write"} {
      %buf = ttl.get_dfb @buf : !ttl.dfb<1x1xbf16>
      %b = ttl.wait %buf : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %b : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK:      error: DFB 'buf' is unbalanced when dispatch condition #0 (evaluated by 'enabled' in 'g.read') is false: kernel 'g.read' pushes 0 tiles but kernel 'g.write' pops 1 tile
// CHECK-NEXT:   at: ttl.dfb @buf (pass ttl-check-dfb-protocol)

// -----

// More tiles pushed than the DFB holds, and no kernel pops them: the third reserve
// waits forever (a kernel is missing, or lost its decorator). Pushes that fit are
// accepted: a kernel may leave data in a DFB it staged blocks through.
// Checked in operations with kernels of both kinds (fewer: a compile-only fragment).
builtin.module {
  ttl.operation @o attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @one_side {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "o.read"} {
      %one_side = ttl.get_dfb @one_side : !ttl.dfb<1x1xbf16>
      %b = ttl.reserve %one_side : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b : !ttl.block<1x1xbf16>
      %b2 = ttl.reserve %one_side : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b2 : !ttl.block<1x1xbf16>
      %b3 = ttl.reserve %one_side : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b3 : !ttl.block<1x1xbf16>
    }
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "o.compute"} {
      %unused = arith.constant 0 : i32
    }
  }
}

// CHECK:      error: DFB 'one_side' is pushed by kernel 'o.read' but no kernel pops it, and it holds only 2 tiles: a reserve() beyond them waits forever
// CHECK-NEXT:   at: ttl.dfb @one_side (pass ttl-check-dfb-protocol)
// CHECK-NEXT: hint: wait on it in the kernel that consumes it (is that kernel missing its

// -----

// Tiles popped that no kernel pushes.
builtin.module {
  ttl.operation @o attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @no_producer {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "o.write"} {
      %d = ttl.get_dfb @no_producer : !ttl.dfb<1x1xbf16>
      %b = ttl.wait %d : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %b : !ttl.block<1x1xbf16>
    }
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "o.compute"} {
      %unused = arith.constant 0 : i32
    }
  }
}

// CHECK:      error: DFB 'no_producer' is popped by kernel 'o.write' but no kernel pushes it
// CHECK-NEXT:   at: ttl.dfb @no_producer (pass ttl-check-dfb-protocol)
// CHECK-NEXT: hint: reserve and push it in the kernel that produces it
