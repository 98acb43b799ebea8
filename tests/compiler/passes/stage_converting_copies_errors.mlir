// PASSES: ttl-stage-converting-copies --verify-diagnostics --split-input-file
// --no-ttl-compiler-dfbs forbids the staging DFB a converting copy needs (the
// driver locates the error at the copy's Python line).

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t", options = "--no-ttl-compiler-dfbs"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x32xf32>}
    ttl.tensor @y {index = 1 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.dfb @dfb {tensor = @a, block_count = 2 : i64, page_size = 4096 : i64, dfb_type = !ttl.dfb<1x1xf32>}
    ttl.kernel @dm attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.dm"} {
      %dfb = ttl.get_dfb @dfb : !ttl.dfb<1x1xf32>
      %y = ttl.get_tensor @y : !ttl.tensor<32x32xbf16>
      %c0 = arith.constant 0 : i32
      %blk = ttl.reserve %dfb : !ttl.dfb<1x1xf32> -> !ttl.block<1x1xf32>
      %s = ttl.slice %y[%c0, %c0] : !ttl.tensor<32x32xbf16> -> !ttl.slice<1x1xbf16>
      %t = ttl.copy %s, %blk : !ttl.slice<1x1xbf16>, !ttl.block<1x1xf32>
      ttl.transfer_wait %t
      ttl.push %blk : !ttl.block<1x1xf32>
    }
  }
}

// CHECK:      error: this copy converts between a bf16 tensor and a block of the other dtype through a compiler-made DFB, and --no-ttl-compiler-dfbs forbids them
// CHECK-NEXT:   at: ttl.copy (pass ttl-stage-converting-copies)
// CHECK-NEXT: hint: make the DFB like a tensor of the tensor's dtype, or drop --no-ttl-compiler-dfbs
