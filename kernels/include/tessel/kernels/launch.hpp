// launch.hpp: launching a LaunchPlan on the GPU: its module through the process-wide module cache
// (JIT-compiled once per context and PTX text), its parameters packed in order, on a stream.
#pragma once

#include <optional>

#include "tessel/codegen/launch_plan.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/runtime/launch.hpp"
#include "tessel/runtime/module.hpp"

namespace tessel::kernels {

// The device kernels run on: the one of the context current on this thread (the caller's, e.g.
// one the CUDA runtime or PyTorch made current); where the thread has none, device 0's primary
// context, made current (retained for the process). Its properties are read once per device.
const rt::DeviceProperties& device_in_use();
// The compute capability of device_in_use(), without making a context current: the current
// context's device, else device 0; nullopt where there is no driver or no device (CPU-only use).
std::optional<int> device_cc_if_any();
// Makes device_in_use() current and checks that it can run the module's target; throws
// tessel::Error naming the kernel, the target it needs and the device's ("no CUDA driver found:
// ..." where there is no driver).
void use_device_for(const codegen::Module& m);
// The plan's kernel, loaded (cached) in the current context.
rt::Function load_plan(const codegen::LaunchPlan& plan);
// Queues the plan's kernel on `stream`; returns once queued.
void launch_plan(const codegen::LaunchPlan& plan, rt::StreamRef stream = {});
void launch_plan(const codegen::LaunchPlan& plan, const rt::Function& f, rt::StreamRef stream = {});
// The same from a plan's pieces, for a caller that keeps the loaded function and the kernel
// (whose parameter list says how each value is packed) itself: no module is copied per call.
void launch_kernel(const rt::Function& f, const codegen::Kernel& entry, const codegen::LaunchPlan& geometry_and_params,
                   rt::StreamRef stream = {});

// A launch made ready to queue again and again: the function, the geometry and the parameters
// packed as the entry declares them; its dynamic shared memory above 48 KB allowed (once per
// function and size). Queuing it (launch_ready) is one driver call, cuLaunchKernelEx.
struct ReadyLaunch {
  rt::Function function;
  rt::LaunchConfig config;  // the stream is launch_ready's
  rt::ArgPack args;
};
ReadyLaunch ready_launch(const rt::Function& f, const codegen::Kernel& entry, const codegen::LaunchPlan& geometry_and_params);
void launch_ready(const ReadyLaunch& launch, rt::StreamRef stream = {});

}  // namespace tessel::kernels
