// PASSES: ttl-prove-slice-bounds
// Row-major tensors (`, row_major` on the types) are indexed in elements: the
// extents ttl-prove-slice-bounds proves against are the tensor's own dims
// (2x5x48 elements), not tiles. The types print back with their layout.

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    // CHECK: tensor_type = !ttl.tensor<2x5x48xbf16, row_major>
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<2x5x48xbf16, row_major>}
    ttl.kernel @dm attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.dm"} {
      %x = ttl.get_tensor @x : !ttl.tensor<2x5x48xbf16, row_major>
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c5 = arith.constant 5 : i32
      %c40 = arith.constant 40 : i32
      scf.for %h = %c0 to %c5 step %c1 : i32 {
        // h in [0, 4] fits 5 rows; 40 + 8 elements fit a 48-element row.
        // CHECK: ttl.slice %x[%c0, %h, %c40] {in_bounds = array<i64: 0, 1, 2>} : !ttl.tensor<2x5x48xbf16, row_major> -> !ttl.slice<1x1x8xbf16, row_major>
        %s0 = ttl.slice %x[%c0, %h, %c40] : !ttl.tensor<2x5x48xbf16, row_major> -> !ttl.slice<1x1x8xbf16, row_major>
        // 40 + 9 elements do not fit: dimension 2 stays for the run-time check.
        // CHECK: ttl.slice %x[%c0, %h, %c40] {in_bounds = array<i64: 0, 1>}
        %s1 = ttl.slice %x[%c0, %h, %c40] : !ttl.tensor<2x5x48xbf16, row_major> -> !ttl.slice<1x1x9xbf16, row_major>
        // h + 1 in [1, 5] can be row 5 of 5: not proven. (Read as tiles, the 5x48
        // inner dims would be one by two tiles and nothing here would be proven.)
        %h1 = arith.addi %h, %c1 : i32
        // CHECK: ttl.slice %x[%c1, %h1, %c0] {in_bounds = array<i64: 0, 2>}
        %s2 = ttl.slice %x[%c1, %h1, %c0] : !ttl.tensor<2x5x48xbf16, row_major> -> !ttl.slice<1x1x48xbf16, row_major>
      }
    }
  }
}
