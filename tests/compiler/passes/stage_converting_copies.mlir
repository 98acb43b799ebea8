// PASSES: ttl-stage-converting-copies
// A copy between a tensor and a block of the other dtype (bf16 <-> f32) moves each
// tensor page through L1 (a NOC transfer moves bytes; the data-movement core
// converts). Each data-movement kernel with such copies gets a one-page DFB
// convert_<kernel> per tensor dtype and layout, declared after the operation's
// other DFBs, sized for the longest row segment of its row-major copies, and each
// converting copy names it as its staging operand. Other copies are left alone.

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<64x64xf32>}
    ttl.tensor @y {index = 1 : i64, tensor_type = !ttl.tensor<64x64xbf16>}
    ttl.tensor @r {index = 2 : i64, tensor_type = !ttl.tensor<4x64xf32, row_major>}
    ttl.dfb @dfb {tensor = @a, block_count = 2 : i64, page_size = 4096 : i64, dfb_type = !ttl.dfb<1x2xf32>}
    ttl.dfb @rows {tensor = @y, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<2x48xbf16, row_major>}
    ttl.kernel @dm attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.dm"} {
      %dfb = ttl.get_dfb @dfb : !ttl.dfb<1x2xf32>
      %rows = ttl.get_dfb @rows : !ttl.dfb<2x48xbf16, row_major>
      %a = ttl.get_tensor @a : !ttl.tensor<64x64xf32>
      %y = ttl.get_tensor @y : !ttl.tensor<64x64xbf16>
      %r = ttl.get_tensor @r : !ttl.tensor<4x64xf32, row_major>
      %c0 = arith.constant 0 : i32
      %blk = ttl.reserve %dfb : !ttl.dfb<1x2xf32> -> !ttl.block<1x2xf32>
      %s0 = ttl.slice %a[%c0, %c0] : !ttl.tensor<64x64xf32> -> !ttl.slice<1x2xf32>
      %t0 = ttl.copy %s0, %blk : !ttl.slice<1x2xf32>, !ttl.block<1x2xf32>
      ttl.transfer_wait %t0
      %s1 = ttl.slice %y[%c0, %c0] : !ttl.tensor<64x64xbf16> -> !ttl.slice<1x2xbf16>
      %t1 = ttl.copy %blk, %s1 : !ttl.block<1x2xf32>, !ttl.slice<1x2xbf16>
      ttl.transfer_wait %t1
      ttl.push %blk : !ttl.block<1x2xf32>
      %rb = ttl.reserve %rows : !ttl.dfb<2x48xbf16, row_major> -> !ttl.block<2x48xbf16, row_major>
      %s2 = ttl.slice %r[%c0, %c0] : !ttl.tensor<4x64xf32, row_major> -> !ttl.slice<2x48xf32, row_major>
      %t2 = ttl.copy %s2, %rb : !ttl.slice<2x48xf32, row_major>, !ttl.block<2x48xbf16, row_major>
      ttl.transfer_wait %t2
      ttl.push %rb : !ttl.block<2x48xbf16, row_major>
    }
  }
}

// CHECK:      ttl.dfb @rows
// CHECK-NEXT: ttl.dfb @convert_dm {tensor = @y, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
// CHECK-NEXT: ttl.dfb @convert_dm_2 {tensor = @r, block_count = 1 : i64, page_size = 4096 : i64, dfb_type = !ttl.dfb<1x48xf32, row_major>}
// CHECK-NEXT: ttl.kernel @dm
// CHECK-NEXT:   %[[ROWS:.*]] = ttl.get_dfb @convert_dm_2 : !ttl.dfb<1x48xf32, row_major>
// CHECK-NEXT:   %[[TILES:.*]] = ttl.get_dfb @convert_dm : !ttl.dfb<1x1xbf16>
// CHECK:        ttl.copy %s0, %blk : !ttl.slice<1x2xf32>, !ttl.block<1x2xf32>
// CHECK:        ttl.copy %blk, %s1 staging %[[TILES]] : !ttl.dfb<1x1xbf16> : !ttl.block<1x2xf32>, !ttl.slice<1x2xbf16>
// CHECK:        ttl.copy %s2, %rb staging %[[ROWS]] : !ttl.dfb<1x48xf32, row_major> : !ttl.slice<2x48xf32, row_major>, !ttl.block<2x48xbf16, row_major>
