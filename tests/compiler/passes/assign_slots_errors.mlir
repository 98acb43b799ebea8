// PASSES: ttl-assign-slots --split-input-file --verify-diagnostics
// Each case is a chunk; --verify-diagnostics prints its diagnostic and goes on.

// A third data-movement kernel finds no slot (the same wording as the
// driver's capacity check on the Python source).
builtin.module {
  ttl.operation @three attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.kernel @a attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "three.a"} {
      %x = ttl.node {dim = 0 : i64} : i32
    }
    ttl.kernel @b attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "three.b"} {
      %x = ttl.node {dim = 0 : i64} : i32
    }
    ttl.kernel @c attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "three.c"} {
      %x = ttl.node {dim = 0 : i64} : i32
    }
  }
}

// CHECK:      error: operation 'three' needs 3 data-movement kernels; target wormhole_b0 has 2
// CHECK-NEXT:   at: ttl.kernel @c (pass ttl-assign-slots)
// CHECK-NEXT: hint: use at most 2 distinct data-movement kernels

// -----

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "grayskull", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
  }
}

// CHECK:      error: unknown target 'grayskull'
// CHECK-NEXT:   at: ttl.operation @op (pass ttl-assign-slots)
// CHECK-NEXT: hint: set target to one of: blackhole, wormhole_b0
