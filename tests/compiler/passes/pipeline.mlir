// PASSES: ttl-check-conditions,ttl-assign-slots,ttl-check-dfb-protocol,ttl-compute-lifetimes,ttl-allocate-dfbs,ttl-dce
// The driver's whole pipeline (driver.PIPELINE) on the frontend IR of
// examples/kernels/dfb_reuse_extern.py (ttlc's IR dump step 00-frontend.mlir):
// two DFBs used one after the other by external calls share physical index 0.

builtin.module {
  ttl.operation @dfb_reuse_extern attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "ae97adfa69a42655a20249af63cf10775f2358d68e38b6df616f93cf067a2235"} {
    ttl.tensor @inp {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.tensor @out {index = 1 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @first {tensor = @inp, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.dfb @second {tensor = @inp, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @stage attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "dfb_reuse_extern.stage"} {
      %inp = ttl.get_tensor @inp : !ttl.tensor<32x128xbf16>
      %out = ttl.get_tensor @out : !ttl.tensor<32x128xbf16>
      %first = ttl.get_dfb @first : !ttl.dfb<1x1xbf16>
      %second = ttl.get_dfb @second : !ttl.dfb<1x1xbf16>
      %0 = arith.constant 0 : i32
      %1 = arith.constant 2 : i32
      ttl.call_extern "kernel_examples.hpp", "stage_tiles"(%inp, %out, %0, %1) descriptors(%first) deps() {template_args = [#ttl.dfb_descriptor<@first>], include_paths = ["examples/kernels/include"], dfb_effects = [#ttl.dfb_effect<reserve, 0, 1>, #ttl.dfb_effect<push, 0, 1>, #ttl.dfb_effect<wait, 0, 1>, #ttl.dfb_effect<pop, 0, 1>, #ttl.dfb_effect<reserve, 0, 1>, #ttl.dfb_effect<push, 0, 1>, #ttl.dfb_effect<wait, 0, 1>, #ttl.dfb_effect<pop, 0, 1>]} : (!ttl.tensor<32x128xbf16>, !ttl.tensor<32x128xbf16>, i32, i32), (!ttl.dfb<1x1xbf16>), ()
      %2 = arith.constant 2 : i32
      %3 = arith.constant 2 : i32
      ttl.call_extern "kernel_examples.hpp", "stage_tiles"(%inp, %out, %2, %3) descriptors(%second) deps() {template_args = [#ttl.dfb_descriptor<@second>], include_paths = ["examples/kernels/include"], dfb_effects = [#ttl.dfb_effect<reserve, 0, 1>, #ttl.dfb_effect<push, 0, 1>, #ttl.dfb_effect<wait, 0, 1>, #ttl.dfb_effect<pop, 0, 1>, #ttl.dfb_effect<reserve, 0, 1>, #ttl.dfb_effect<push, 0, 1>, #ttl.dfb_effect<wait, 0, 1>, #ttl.dfb_effect<pop, 0, 1>]} : (!ttl.tensor<32x128xbf16>, !ttl.tensor<32x128xbf16>, i32, i32), (!ttl.dfb<1x1xbf16>), ()
    }
  }
}

// CHECK:      ttl.dfb @first {{{.*}}, protocol = #ttl.protocol<balanced [2]>,
// CHECK-SAME:   lifetime = #ttl.lifetime<kernels ["dfb_reuse_extern.stage"], span [6, 6]>, physical_index = 0 : i64}
// CHECK-NEXT: ttl.dfb @second {{{.*}}, protocol = #ttl.protocol<balanced [2]>,
// CHECK-SAME:   lifetime = #ttl.lifetime<kernels ["dfb_reuse_extern.stage"], span [9, 9]>, physical_index = 0 : i64}
// CHECK-NEXT: ttl.kernel @stage attributes {{{.*}}logical_kernel = "dfb_reuse_extern.stage", slot = "dm0"}
