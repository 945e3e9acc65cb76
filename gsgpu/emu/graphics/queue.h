// A FIFO between two fixed-function blocks of the graphics pipeline.
//
// Seed 002 connects its Modules by Queues (one write and one read per cycle). The functional model
// here has no clock yet, so a Queue is an unbounded FIFO: a block pushes what it produced and the next
// block pops it. Keeping the blocks' only contact a Queue (or a plain call interface) lets the timing
// model later bound the depth and clock each side without changing the blocks.
//
// Storage is a vector read from a head index and emptied (capacity kept) when the reader catches up:
// a std::deque of 1 KiB triangles allocated a node per element, a malloc and free per triangle.
// Emptied slots stay constructed, so push_slot() can hand one back to be filled in place without
// constructing (or copying) a 1 KiB element: what the writer does not set keeps an older value.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gsgpu::graphics {

template <typename T>
class Queue {
 public:
  void push(T item) { push_slot() = std::move(item); }
  // The new back element, to be filled in place. It holds whatever an earlier element of this queue
  // left there (or a value-initialised T): the writer sets every field a reader may read.
  T& push_slot() {
    if (tail_ == items_.size()) items_.emplace_back();
    return items_[tail_++];
  }
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  T pop() {
    T item = std::move(items_[head_++]);
    if (head_ == tail_) clear();
    return item;
  }
  const T& front() const { return items_[head_]; }
  // pop() without the copy out: for 1 KiB primitives read in place through front(). The reference
  // front() gave is invalid afterwards, and a push() while it is held may move it.
  void drop_front() {
    if (++head_ == tail_) clear();
  }
  void clear() { head_ = tail_ = 0; }
  // Exchanges the elements and the storage: the fast mode's geometry thread hands a batch of
  // triangles over this way instead of copying 1 KiB per triangle (geometry_thread.h).
  void swap(Queue& other) noexcept {
    items_.swap(other.items_);
    std::swap(head_, other.head_);
    std::swap(tail_, other.tail_);
  }

 private:
  std::vector<T> items_;  // constructed slots; [head_, tail_) are the queue's elements
  size_t head_ = 0;       // items_[head_] is the front
  size_t tail_ = 0;
};

}  // namespace gsgpu::graphics
