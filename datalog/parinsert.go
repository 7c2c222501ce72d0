// This file merges the head tuples of a batch of parallel tasks without
// provenance (parallel.go): inserted in task order, as the sequential
// evaluation inserts them.

package datalog

// mergeSets inserts the batch's head tuples in task order.
func (e *evaluator) mergeSets(tasks []parTask, _ []*evaluator) {
	for i := range tasks {
		o := &tasks[i].out
		rel := e.cur[o.ci]
		a := rel.arity
		for j := range o.tags {
			row, added := rel.insert(o.tup[j*a : (j+1)*a])
			if added && e.added != nil {
				e.added[o.ci] = append(e.added[o.ci], row)
			}
		}
	}
}
