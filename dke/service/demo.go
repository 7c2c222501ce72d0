// The bundled demo store: what `deloreis dke mcp` serves when no project
// is named.

package service

import (
	"context"
	"fmt"
)

// dkeDemoModule is the demo store's module: the contract's inventory.
const dkeDemoModule = `def restock(id: string):
    remember(Widget[id].stock, 10, "restock")

def count_on_hand(id: string) -> int:
    c = current(Widget[id].stock)
    if c.found:
        return int(c.value)
    return 0
`

// BuildDemo makes the demo lorestore in dir, store "default" with the
// inventory module compiled and one widget restocked, and returns the
// service over it (Close closes the store).
func BuildDemo(dir string, o StoreOptions) (*Service, error) {
	svc, err := Init(OpenOptions{StoreDir: dir, StoreOptions: o})
	if err != nil {
		return nil, err
	}
	_, err = svc.CreateStore(DefaultStore)
	if err == nil {
		src := dkeDemoModule
		_, err = svc.Compile(context.Background(), &CompileParams{Name: "inventory", Source: &src})
	}
	if err == nil {
		_, err = svc.Run(context.Background(), &RunParams{Source: "import inventory\ninventory.restock(\"widget-1\")\n"})
	}
	if err != nil {
		svc.Close()
		return nil, fmt.Errorf("the DKE demo store: %w", err)
	}
	return svc, nil
}
