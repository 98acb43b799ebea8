// PASSES: ttl-stage-tensor-prints --verify-diagnostics --split-input-file
// A compute kernel cannot print a tensor (no NOC access to its pages), and
// --no-ttl-compiler-dfbs forbids the staging DFB a tensor print needs (the
// driver locates both errors at the print's Python line).

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %a = ttl.get_tensor @a : !ttl.tensor<32x32xbf16>
      ttl.print(%a) {parts = [0 : i64], end = "\0A"} : (!ttl.tensor<32x32xbf16>)
    }
  }
}

// CHECK:      error: a compute kernel cannot print a tensor: TT-Metal compute kernels have no NOC access to read its pages
// CHECK-NEXT:   at: ttl.print (pass ttl-stage-tensor-prints)
// CHECK-NEXT: hint: print the tensor from a data-movement kernel, or print a block of it

// -----

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t", options = "--no-ttl-compiler-dfbs"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.read"} {
      %a = ttl.get_tensor @a : !ttl.tensor<32x32xbf16>
      ttl.print(%a) {parts = [0 : i64], end = "\0A"} : (!ttl.tensor<32x32xbf16>)
    }
  }
}

// CHECK:      error: printing a tensor reads its pages into a compiler-made DFB (TT-Metal prints tiles from L1), and --no-ttl-compiler-dfbs forbids them
// CHECK-NEXT:   at: ttl.print (pass ttl-stage-tensor-prints)
// CHECK-NEXT: hint: print a block the tensor was copied into, or drop --no-ttl-compiler-dfbs
