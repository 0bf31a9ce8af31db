package redisstore

// The scripts in scripts/ are assembled from the driver and block files of
// this directory; after editing those, regenerate them:
//go:generate go run ./internal/scriptgen
