// PASSES: ttl-check-conditions
// Both kernels evaluate dispatch condition #0 with one scalar type: the pass
// accepts the IR and leaves it unchanged.

builtin.module {
  ttl.operation @cond attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "cond.read"} {
      %on = ttl.call_extern "h.hpp", "enabled"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<0, i32>} : (), (), () -> i32
    }
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "cond.write"} {
      %on = ttl.call_extern "h.hpp", "enabled"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<0, i32>} : (), (), () -> i32
      %other = ttl.call_extern "h.hpp", "other"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<1, i64>} : (), (), () -> i64
    }
  }
}

// CHECK:      ttl.kernel @read
// CHECK-NEXT:   %on = ttl.call_extern "h.hpp", "enabled"() {{.*}}condition = #ttl.dispatch_condition<0, i32>}
// CHECK:      ttl.kernel @write
// CHECK-NEXT:   %on_1 = ttl.call_extern "h.hpp", "enabled"() {{.*}}condition = #ttl.dispatch_condition<0, i32>}
// CHECK-NEXT:   %other = ttl.call_extern "h.hpp", "other"() {{.*}}condition = #ttl.dispatch_condition<1, i64>}
