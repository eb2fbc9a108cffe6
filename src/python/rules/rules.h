// The Python checks, one function per rule (one file each), dispatched by node kind.
#pragma once

#include "python/context.h"

namespace stoker::python::rules {

// On `call` nodes.
void dl001_synchronous_data_loader(Context& ctx, Node call);
void dl002_unpinned_host_batches(Context& ctx, Node call);
void dl003_workers_respawned_each_epoch(Context& ctx, Node call);
void dl004_loader_built_in_loop(Context& ctx, Node call);
void dl005_cuda_work_in_dataset(Context& ctx, Node call);
void dl006_pinning_on_main_thread(Context& ctx, Node call);
void tx001_blocking_host_to_device_copy(Context& ctx, Node call);
void tx002_host_tensor_then_copy(Context& ctx, Node call);
void tx003_loop_invariant_transfer(Context& ctx, Node call);
void tx004_unsynchronized_async_readback(Context& ctx, Node call);
void sy001_host_readback_in_hot_loop(Context& ctx, Node node);  // calls and f-string interpolations
void sy002_tensor_value_control_flow(Context& ctx, Node node);  // if/while/assert/ternary/and/or
void sy003_data_dependent_shape_op(Context& ctx, Node node);    // calls and subscripts
void sy004_explicit_sync_in_hot_loop(Context& ctx, Node call);
void bs001_small_batch(Context& ctx, Node call);
// Distributed training (DD).
void dd001_accumulation_without_no_sync(Context& ctx, Node call);
void dd002_find_unused_parameters(Context& ctx, Node call);
void dd003_gloo_with_cuda(Context& ctx, Node call);
void dd004_collective_readback_in_hot_loop(Context& ctx, Node call);
void dd005_nccl_transport_disabled(Context& ctx, Node node);  // calls and `os.environ[...] =` subscripts
void dd006_sampler_epoch_not_set(Context& ctx, Node call);
// GU (GPU compute utilization).
void gu004_data_parallel(Context& ctx, Node call);
void gu005_grad_enabled_evaluation(Context& ctx, Node call);
void gu006_debug_api_in_training(Context& ctx, Node call);
void gu008_conv_bias_before_batchnorm(Context& ctx, Node call);
void gu009_single_tensor_optimizer(Context& ctx, Node call);
void gu011_zero_grad_keeps_tensors(Context& ctx, Node call);
void gu012_debug_env_in_training(Context& ctx, Node node);  // calls and assignments
// GU program-level checks: on the module node, once per file.
void gu001_no_mixed_precision(Context& ctx, Node module);
void gu002_cudnn_autotuner_off(Context& ctx, Node module);
void gu003_tf32_off(Context& ctx, Node module);
void gu010_channels_last_off(Context& ctx, Node module);
void gu013_tensor_core_unfriendly_dims(Context& ctx, Node module);

}  // namespace stoker::python::rules
