// A FIFO between two fixed-function blocks of the graphics pipeline.
//
// Seed 002 connects its Modules by Queues (one write and one read per cycle). The functional model
// here has no clock yet, so a Queue is an unbounded FIFO: a block pushes what it produced and the next
// block pops it. Keeping the blocks' only contact a Queue (or a plain call interface) lets the timing
// model later bound the depth and clock each side without changing the blocks.
//
// Storage is a vector read from a head index and emptied (capacity kept) when the reader catches up:
// a std::deque of 1 KiB triangles allocated a node per element, a malloc and free per triangle.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gsgpu::graphics {

template <typename T>
class Queue {
 public:
  void push(T item) { items_.push_back(std::move(item)); }
  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }
  T pop() {
    T item = std::move(items_[head_++]);
    if (head_ == items_.size()) clear();
    return item;
  }
  const T& front() const { return items_[head_]; }
  // pop() without the copy out: for 1 KiB primitives read in place through front(). The reference
  // front() gave is invalid afterwards, and a push() while it is held may move it.
  void drop_front() {
    if (++head_ == items_.size()) clear();
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  size_t head_ = 0;  // items_[head_] is the front
};

}  // namespace gsgpu::graphics
