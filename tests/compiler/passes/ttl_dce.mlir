// PASSES: ttl-dce
// The pipeline's dead-code elimination: as xDSL's dce (dce.mlir), but an
// scf.while stays even when nothing uses it: the compiler cannot prove it ends,
// and a loop that never ends must reach the emulator's runaway report. An
// unused pure scf.for with constant bounds still goes.

builtin.module {
  ttl.operation @d attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.kernel @dm attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "d.dm"} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %n = scf.while (%arg = %c0) : (i32) -> i32 {
        %cond = arith.cmpi slt, %arg, %c1 : i32
        scf.condition(%cond) %arg : i32
      } do {
      ^bb0(%arg2 : i32):
        %next = arith.muli %arg2, %c1 : i32
        scf.yield %next : i32
      }
      scf.for %i = %c0 to %c1 step %c1 : i32 {
        %x = ttl.node {dim = 0 : i64} : i32
      }
      %unused = arith.addi %c0, %c1 : i32
    }
  }
}

// CHECK-LABEL: ttl.kernel @dm
// CHECK:         scf.while
// CHECK:           arith.cmpi slt
// CHECK:           scf.condition
// CHECK:           arith.muli
// CHECK:           scf.yield
// CHECK-NOT:     scf.for
// CHECK-NOT:     arith.addi
