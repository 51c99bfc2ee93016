#pragma once
// Ctrl-C during a launch: the work runs on a worker thread with the GIL
// released while the calling thread checks Python's signal handlers every
// 50 ms. A handler that raises (KeyboardInterrupt by default) sets the launch's
// cancel flag; once the worker has stopped, that exception is raised. Python
// runs signal handlers only on its main thread: from other threads the work
// runs to its end.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace cdna4::python {

// `work(cancel)` -> its result; `cancel` is for LaunchOptions::cancel.
template <class Work>
auto run_interruptible(Work work) {
  using Result = decltype(work(static_cast<const std::atomic<bool>*>(nullptr)));
  std::atomic<bool> cancel{false};
  std::optional<Result> result;
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false, interrupted = false;
  {
    pybind11::gil_scoped_release release;
    std::thread worker([&] {
      try {
        result.emplace(work(&cancel));
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
      finished.notify_one();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
      if (interrupted) continue;
      lock.unlock();
      {
        pybind11::gil_scoped_acquire gil;
        interrupted = PyErr_CheckSignals() != 0;  // the handler's exception stays set
      }
      if (interrupted) cancel = true;
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupted) throw pybind11::error_already_set();
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace cdna4::python
