// PASSES: ttl-prove-slice-bounds
// Slice offsets proven inside the tensor (10x4 tiles) are listed in
// in_bounds; the emitter checks only the others at run time. Facts: node
// coordinates lie in the 4x2 grid, loop variables in [lower, upper - 1], and
// an scf.if condition holds in its then region and fails in its else region;
// values computed from a refined value (%r2 below) are refined with it.

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 4, 2>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<320x128xbf16>}
    ttl.kernel @dm attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.dm"} {
      %a = ttl.get_tensor @a : !ttl.tensor<320x128xbf16>
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c3 = arith.constant 3 : i32
      %c5 = arith.constant 5 : i32
      %x = ttl.node {dim = 0 : i64} : i32
      %y = ttl.node {dim = 1 : i64} : i32
      // node x in [0, 3], node y in [0, 1]: both fit a 1x1 slice.
      // CHECK: ttl.slice %a[%x, %y] {in_bounds = array<i64: 0, 1>}
      %s0 = ttl.slice %a[%x, %y] : !ttl.tensor<320x128xbf16> -> !ttl.slice<1x1xbf16>
      scf.for %i = %c0 to %c5 step %c1 : i32 {
        // 2 * i in [0, 8]: rows 0..9 fit; x + 1 in [1, 4] does not fit 4 columns.
        %r = arith.muli %i, %c2 : i32
        %col = arith.addi %x, %c1 : i32
        // CHECK: ttl.slice %a[%r, %col] {in_bounds = array<i64: 0>}
        %s1 = ttl.slice %a[%r, %col] : !ttl.tensor<320x128xbf16> -> !ttl.slice<2x1xbf16>
        // 2 * i + 2 in [2, 10]: not proven, but proven under (i < 3 and x < 3).
        %r2 = arith.addi %r, %c2 : i32
        // CHECK: ttl.slice %a[%r2, %c0] {in_bounds = array<i64: 1>}
        %s2 = ttl.slice %a[%r2, %c0] : !ttl.tensor<320x128xbf16> -> !ttl.slice<1x1xbf16>
        %lt3 = arith.cmpi slt, %i, %c3 : i32
        %xlt3 = arith.cmpi slt, %x, %c3 : i32
        %both = arith.andi %lt3, %xlt3 : i1
        scf.if %both {
          // CHECK: ttl.slice %a[%r2, %col] {in_bounds = array<i64: 0, 1>}
          %s3 = ttl.slice %a[%r2, %col] : !ttl.tensor<320x128xbf16> -> !ttl.slice<2x1xbf16>
        } else {
          // Neither i nor x is known to be large here (an and that fails).
          // CHECK: ttl.slice %a[%r2, %col] : !ttl.tensor
          %s4 = ttl.slice %a[%r2, %col] : !ttl.tensor<320x128xbf16> -> !ttl.slice<2x1xbf16>
        }
        %big = arith.cmpi sge, %x, %c3 : i32
        scf.if %big {
          // x == 3 here: x - 3 is 0.
          %z = arith.subi %x, %c3 : i32
          // CHECK: ttl.slice %a[%c0, %z] {in_bounds = array<i64: 0, 1>}
          %s5 = ttl.slice %a[%c0, %z] : !ttl.tensor<320x128xbf16> -> !ttl.slice<1x4xbf16>
        } else {
          // x < 3 here: x + 1 fits.
          // CHECK: ttl.slice %a[%c0, %col] {in_bounds = array<i64: 0, 1>}
          %s6 = ttl.slice %a[%c0, %col] : !ttl.tensor<320x128xbf16> -> !ttl.slice<1x1xbf16>
        }
      }
      // A while-loop value is not bounded: checked at run time.
      %n = scf.while (%arg = %c0) : (i32) -> i32 {
        %go = arith.cmpi slt, %arg, %c3 : i32
        scf.condition(%go) %arg : i32
      } do {
      ^bb0(%v : i32):
        // CHECK: ttl.slice %a[%v, %c0] {in_bounds = array<i64: 1>}
        %s7 = ttl.slice %a[%v, %c0] : !ttl.tensor<320x128xbf16> -> !ttl.slice<1x1xbf16>
        %next = arith.addi %v, %c1 : i32
        scf.yield %next : i32
      }
      // Floor division by a positive constant: (x + 5) // 2 in [2, 4].
      %x5 = arith.addi %x, %c5 : i32
      %h = arith.floordivsi %x5, %c2 : i32
      // CHECK: ttl.slice %a[%h, %c0] {in_bounds = array<i64: 0, 1>}
      %s8 = ttl.slice %a[%h, %c0] : !ttl.tensor<320x128xbf16> -> !ttl.slice<1x1xbf16>
    }
  }
}
