// PASSES: ttl-check-conditions
// EXIT: 1
// One ordinal is one ttl.DispatchCondition, so it cannot have two scalar types.

builtin.module {
  ttl.operation @cond attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "cond.read"} {
      %on = ttl.call_extern "h.hpp", "enabled"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<0, i32>} : (), (), () -> i32
    }
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "cond.write"} {
      %on = ttl.call_extern "h.hpp", "enabled64"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<0, i64>} : (), (), () -> i64
    }
  }
}

// CHECK:      conditions_error.mlir: error: dispatch condition #0 is evaluated as i32 by 'enabled' and as i64 by 'enabled64'
// CHECK-NEXT:   at: ttl.call_extern (pass ttl-check-conditions)
// CHECK-NEXT: hint: equal #ttl.dispatch_condition ordinals name one ttl.DispatchCondition
