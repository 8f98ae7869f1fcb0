package statedir

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// idFile holds the state dir's id.
const idFile = ".id"

// ID returns the state dir's id, made once when first asked for: random,
// and moved with the directory, so that a state dir moved elsewhere is told
// from a new one created where it was.
func (d *Dir) ID(ctx context.Context) (string, error) {
	if id, err := d.readID(); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	unlock, err := d.Lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	if id, err := d.readID(); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	if err := d.WriteFile(idFile, []byte(id+"\n")); err != nil {
		return "", err
	}
	return id, nil
}

func (d *Dir) readID() (string, error) {
	data, err := d.ReadFile(idFile)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(data))
	if id == "" {
		return "", fmt.Errorf("state dir id file %s is empty: delete it, and the next run makes a new one", d.Join(idFile))
	}
	return id, nil
}
