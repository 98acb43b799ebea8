// PASSES: ttl-assign-slots
// Kernels take the target's processor slots of their kind in declaration
// order; the target is the ttl.operation's `target` attribute. A slot already
// present is reassigned.

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "blackhole", identity = "t"} {
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.write", slot = "dm1"} {
      %x = ttl.node {dim = 0 : i64} : i32
    }
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %x = ttl.node {dim = 0 : i64} : i32
    }
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.read"} {
      %x = ttl.node {dim = 0 : i64} : i32
    }
  }
}

// CHECK: ttl.operation @op attributes {{{.*}}target = "blackhole"
// CHECK: ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.write", slot = "dm0"}
// CHECK: ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute", slot = "compute"}
// CHECK: ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.read", slot = "dm1"}
