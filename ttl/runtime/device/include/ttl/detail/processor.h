// Which of TT-Metal's processors a kernel is built for.
//
// The build says it with TT-Metal's own defines, as TT-Metal's JIT does:
// COMPILE_FOR_BRISC or COMPILE_FOR_NCRISC for a data-movement kernel,
// COMPILE_FOR_TRISC for a compute kernel (ttl.device_build passes them from the
// manifest). A kernel built without them takes the kind of the first kernel API
// header it includes (api/dataflow/dataflow_api.h or api/compute/...).
// TTL_COMPUTE_KERNEL hides the data-movement API, TTL_DATA_MOVEMENT_KERNEL the
// compute API, as each processor's TT-Metal build lacks the other's.
#pragma once

#if defined(COMPILE_FOR_TRISC) && !defined(TTL_COMPUTE_KERNEL)
#define TTL_COMPUTE_KERNEL 1
#endif
#if (defined(COMPILE_FOR_BRISC) || defined(COMPILE_FOR_NCRISC)) && !defined(TTL_DATA_MOVEMENT_KERNEL)
#define TTL_DATA_MOVEMENT_KERNEL 1
#endif
