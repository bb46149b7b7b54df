// stream.hpp: streams (ordered queues of device work) and events (markers in them, for
// synchronisation and timing).
#pragma once

namespace tessel::rt {

class Stream;

// A non-owning reference to a stream; the default value is the legacy default stream (stream 0),
// with which every tessel Stream synchronises.
class StreamRef {
 public:
  StreamRef() = default;
  StreamRef(const Stream& stream);  // NOLINT: implicit, so a Stream can be passed where a StreamRef is taken
  static StreamRef from_native(void* cu_stream) { return StreamRef(cu_stream); }
  void* native() const { return handle_; }  // the CUstream

 private:
  explicit StreamRef(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

// A stream created in the current context (blocking: it synchronises with stream 0, so that
// synchronous copies see the work queued on it).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void synchronize() const;  // waits until all work queued so far has finished
  void* native() const { return handle_; }

 private:
  void* handle_ = nullptr;
  void* context_ = nullptr;
};

// An event of the current context; timing is on unless asked otherwise.
class Event {
 public:
  explicit Event(bool timing = true);
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(StreamRef stream = {});  // marks the point reached by the work queued so far
  void synchronize() const;            // waits until the recorded point is reached
  bool done() const;                   // whether it is reached, without waiting
  void* native() const { return handle_; }

 private:
  void* handle_ = nullptr;
  void* context_ = nullptr;
};

// Milliseconds between two recorded, completed timing events (cuEventElapsedTime: about 0.5 us
// resolution). Throws DriverError (CUDA_ERROR_NOT_READY) if either has not completed.
float elapsed_ms(const Event& start, const Event& end);

}  // namespace tessel::rt
