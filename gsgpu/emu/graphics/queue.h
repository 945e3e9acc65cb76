// A FIFO between two fixed-function blocks of the graphics pipeline.
//
// Seed 002 connects its Modules by Queues (one write and one read per cycle). The functional model
// here has no clock yet, so a Queue is an unbounded FIFO: a block pushes what it produced and the next
// block pops it. Keeping the blocks' only contact a Queue (or a plain call interface) lets the timing
// model later bound the depth and clock each side without changing the blocks.
#pragma once

#include <cstddef>
#include <deque>
#include <utility>

namespace gsgpu::graphics {

template <typename T>
class Queue {
 public:
  void push(T item) { items_.push_back(std::move(item)); }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  T pop() {
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }
  const T& front() const { return items_.front(); }
  void clear() { items_.clear(); }

 private:
  std::deque<T> items_;
};

}  // namespace gsgpu::graphics
