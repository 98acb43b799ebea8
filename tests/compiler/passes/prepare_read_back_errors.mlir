// PASSES: ttl-prepare-read-back --verify-diagnostics
// --no-ttl-compiler-dfbs forbids the shadow DFB a program's block read back needs.

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t", options = "--no-ttl-compiler-dfbs"} {
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.dfb @y_dfb {tensor = @x, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %y_dfb = ttl.get_dfb @y_dfb : !ttl.dfb<1x1xbf16>
      %y_blk = ttl.reserve %y_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %two = ttl.fill 2.000000e+00 : f32 : !ttl.tiles<1x1xbf16>
      ttl.store %two, %y_blk {acc = false} : !ttl.tiles<1x1xbf16>, !ttl.block<1x1xbf16>
      %a = ttl.read %y_blk : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      %b = ttl.mul %a, %a : !ttl.tiles<1x1xbf16>
      ttl.store %b, %y_blk {acc = false} : !ttl.tiles<1x1xbf16>, !ttl.block<1x1xbf16>
      ttl.push %y_blk : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK:      error: a block of 'y_dfb' is read back after a store, which on TT-Metal (whose unpackers read only a DFB's front) needs a compiler-made DFB, and --no-ttl-compiler-dfbs forbids them
// CHECK-NEXT:   at: ttl.reserve (pass ttl-prepare-read-back)
// CHECK-NEXT: hint: store the value into a block of another DFB of your own and read that one
