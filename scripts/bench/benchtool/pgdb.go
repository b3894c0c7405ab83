package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"cloudplane/models"
	"cloudplane/models/database"
)

// benchDBPrefix names the databases pgdb creates; drop refuses others.
const benchDBPrefix = "cloudplane_bench_"

// pgdb creates a fresh database for one benchmark run on the server at
// --url and prints its URL, or drops a database it created (--url names it).
func pgdb(args []string) error {
	if len(args) == 0 || (args[0] != "create" && args[0] != "drop") {
		return errors.New("usage: benchtool pgdb create|drop --url URL")
	}
	fs := flag.NewFlagSet("pgdb", flag.ContinueOnError)
	raw := fs.String("url", "", "postgres:// URL of the server (create) or of the database to drop")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	u, err := url.Parse(*raw)
	if err != nil || !database.IsPostgres(*raw) {
		return fmt.Errorf("--url %q is no postgres:// URL", *raw)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if args[0] == "create" {
		name = benchDBPrefix + strings.ToLower(models.NewID()[20:]) // random bits; an id starts with the time
	} else if !strings.HasPrefix(name, benchDBPrefix) {
		return fmt.Errorf("refusing to drop %q, which benchtool did not create", name)
	}
	admin := *u
	admin.Path = "/postgres"
	db, err := gorm.Open(postgres.Open(admin.String()), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	if sqlDB, err := db.DB(); err == nil {
		defer sqlDB.Close()
	}
	if args[0] == "drop" {
		return db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").Error
	}
	if err := db.Exec("CREATE DATABASE " + name).Error; err != nil {
		return err
	}
	u.Path = "/" + name
	fmt.Println(u.String())
	return nil
}
