package macro

// Item is an entry of a Heap: a node and its priority, smaller first.
type Item struct {
	Pri uint64
	ID  int32
}

// Heap is a binary min-heap of items over one growing slice.
type Heap struct{ items []Item }

// Len returns the number of items.
func (h *Heap) Len() int { return len(h.items) }

// Push adds an item.
func (h *Heap) Push(it Item) {
	h.items = append(h.items, it)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.items[p].Pri <= it.Pri {
			break
		}
		h.items[i] = h.items[p]
		i = p
	}
	h.items[i] = it
}

// Pop removes and returns the item with the smallest priority.
func (h *Heap) Pop() Item {
	top := h.items[0]
	last := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	n := len(h.items)
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.items[c+1].Pri < h.items[c].Pri {
			c++
		}
		if last.Pri <= h.items[c].Pri {
			break
		}
		h.items[i] = h.items[c]
		i = c
	}
	h.items[i] = last
	return top
}
