// PASSES: ttl-materialize-scalers --verify-diagnostics
// --no-ttl-compiler-dfbs forbids the scaler DFB a reduction without a scaler block
// needs (the driver locates the error at the reduction's Python line).

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t", options = "--no-ttl-compiler-dfbs"} {
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.dfb @x_dfb {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %x_dfb = ttl.get_dfb @x_dfb : !ttl.dfb<1x1xbf16>
      %x_blk = ttl.wait %x_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %x = ttl.read %x_blk : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      %one = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1xbf16>
      %s = ttl.reduce sum %x, %one {dims = array<i64: -1>} : !ttl.tiles<1x1xbf16>, !ttl.tiles<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      ttl.pop %x_blk : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK:      error: a reduction without a scaler block needs a compiler-made DFB for the scaler tile TT-Metal's reduce_tile reads, and --no-ttl-compiler-dfbs forbids them
// CHECK-NEXT:   at: ttl.reduce (pass ttl-materialize-scalers)
// CHECK-NEXT: hint: pass a scaler block of your own
