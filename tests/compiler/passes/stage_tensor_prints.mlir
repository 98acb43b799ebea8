// PASSES: ttl-stage-tensor-prints
// A data-movement kernel that prints tensors reads their pages into L1 first
// (TT-Metal prints tiles from a CB): it gets a one-tile DFB per printed dtype,
// print_<kernel>, declared after the operation's other DFBs, and each tensor
// print names it as its staging operand. Other prints are left alone.

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<64x64xbf16>}
    ttl.tensor @b {index = 1 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.tensor @c {index = 2 : i64, tensor_type = !ttl.tensor<32x32xf32>}
    ttl.dfb @a_dfb {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.read"} {
      %a_dfb = ttl.get_dfb @a_dfb : !ttl.dfb<1x1xbf16>
      %a = ttl.get_tensor @a : !ttl.tensor<64x64xbf16>
      %b = ttl.get_tensor @b : !ttl.tensor<32x32xbf16>
      %c = ttl.get_tensor @c : !ttl.tensor<32x32xf32>
      ttl.print(%a) {parts = ["a: ", 0 : i64], end = "\0A", num_pages = 2 : i64} : (!ttl.tensor<64x64xbf16>)
      ttl.print(%b) {parts = [0 : i64], end = "\0A"} : (!ttl.tensor<32x32xbf16>)
      ttl.print(%c) {parts = [0 : i64], end = "\0A"} : (!ttl.tensor<32x32xf32>)
      ttl.print(%a_dfb) {parts = [0 : i64], end = "\0A"} : (!ttl.dfb<1x1xbf16>)
    }
  }
}

// CHECK:      ttl.dfb @a_dfb
// CHECK-NEXT: ttl.dfb @print_read {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
// CHECK-NEXT: ttl.dfb @print_read_2 {tensor = @c, block_count = 1 : i64, page_size = 4096 : i64, dfb_type = !ttl.dfb<1x1xf32>}
// CHECK-NEXT: ttl.kernel @read
// CHECK-NEXT:   %[[F32:.*]] = ttl.get_dfb @print_read_2 : !ttl.dfb<1x1xf32>
// CHECK-NEXT:   %[[BF16:.*]] = ttl.get_dfb @print_read : !ttl.dfb<1x1xbf16>
// CHECK:        ttl.print(%a) staging %[[BF16]] : !ttl.dfb<1x1xbf16> {parts = ["a: ", 0 : i64], end = "\0A", num_pages = 2 : i64} : (!ttl.tensor<64x64xbf16>)
// CHECK-NEXT:   ttl.print(%b) staging %[[BF16]] : !ttl.dfb<1x1xbf16> {parts = [0 : i64], end = "\0A"} : (!ttl.tensor<32x32xbf16>)
// CHECK-NEXT:   ttl.print(%c) staging %[[F32]] : !ttl.dfb<1x1xf32> {parts = [0 : i64], end = "\0A"} : (!ttl.tensor<32x32xf32>)
// CHECK-NEXT:   ttl.print(%a_dfb) {parts = [0 : i64], end = "\0A"} : (!ttl.dfb<1x1xbf16>)
