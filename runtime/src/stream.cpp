// stream.cpp: Stream and Event.
#include "tessel/runtime/stream.hpp"

#include <utility>

#include "call.hpp"
#include "context_guard.hpp"

namespace tessel::rt {

StreamRef::StreamRef(const Stream& stream) : handle_(stream.native()) {}

Stream::Stream() {
  const cu::DriverApi& d = detail::api();
  cu::CUstream s = nullptr;
  detail::check(d, d.cuStreamCreate(&s, cu::CU_STREAM_DEFAULT), "cuStreamCreate");
  handle_ = s;
  context_ = detail::current_context(d);
}

Stream::~Stream() {
  if (!handle_) return;
  const cu::DriverApi& d = detail::api();
  detail::ContextGuard guard(d, context_);
  d.cuStreamDestroy(static_cast<cu::CUstream>(handle_));  // returns at once; queued work still completes
}

Stream::Stream(Stream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), context_(std::exchange(other.context_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));
    handle_ = std::exchange(other.handle_, nullptr);
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const {
  if (!handle_) fail("Stream::synchronize: this Stream was moved from");
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuStreamSynchronize(static_cast<cu::CUstream>(handle_)), "cuStreamSynchronize");
}

Event::Event(bool timing) {
  const cu::DriverApi& d = detail::api();
  cu::CUevent e = nullptr;
  detail::check(d, d.cuEventCreate(&e, timing ? cu::CU_EVENT_DEFAULT : cu::CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  handle_ = e;
  context_ = detail::current_context(d);
}

Event::~Event() {
  if (!handle_) return;
  const cu::DriverApi& d = detail::api();
  detail::ContextGuard guard(d, context_);
  d.cuEventDestroy(static_cast<cu::CUevent>(handle_));
}

Event::Event(Event&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), context_(std::exchange(other.context_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event old(std::move(*this));
    handle_ = std::exchange(other.handle_, nullptr);
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}

void Event::record(StreamRef stream) {
  if (!handle_) fail("Event::record: this Event was moved from");
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuEventRecord(static_cast<cu::CUevent>(handle_), static_cast<cu::CUstream>(stream.native())),
                "cuEventRecord");
}

void Event::synchronize() const {
  if (!handle_) fail("Event::synchronize: this Event was moved from");
  const cu::DriverApi& d = detail::api();
  detail::check(d, d.cuEventSynchronize(static_cast<cu::CUevent>(handle_)), "cuEventSynchronize");
}

bool Event::done() const {
  if (!handle_) fail("Event::done: this Event was moved from");
  const cu::DriverApi& d = detail::api();
  cu::CUresult r = d.cuEventQuery(static_cast<cu::CUevent>(handle_));
  if (r == cu::CUDA_ERROR_NOT_READY) return false;
  detail::check(d, r, "cuEventQuery");
  return true;
}

float elapsed_ms(const Event& start, const Event& end) {
  if (!start.native() || !end.native()) fail("elapsed_ms: an Event was moved from");
  const cu::DriverApi& d = detail::api();
  float ms = 0;
  detail::check(
      d, d.cuEventElapsedTime(&ms, static_cast<cu::CUevent>(start.native()), static_cast<cu::CUevent>(end.native())),
      "cuEventElapsedTime");
  return ms;
}

}  // namespace tessel::rt
